import { z } from 'zod';
import { ObjectIdHex, ZoneCode } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import { MAX_LINE_QTY } from './cart';
import { CartView } from './cart-view';

const CartId = z
  .uuid()
  .meta({ description: 'Cart id (uuid)', example: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10' });
const ProductId = ObjectIdHex.meta({
  description: 'Product id (24-character hex ObjectId)',
  example: '5eed00000000000000000405',
});
const CartParams = z.strictObject({ id: CartId });
const ItemParams = z.strictObject({ id: CartId, product_id: ProductId });

/** Fields a client might send to set a price or a name: refused with their own code (ADR 0060). */
const CLIENT_PRICED = new Set(['unit_price', 'price', 'name', 'total', 'line_total']);
const clientPriced = (field: string): string | undefined =>
  CLIENT_PRICED.has(field) ? 'CARTS.CLIENT_PRICE_REJECTED' : undefined;
const CLIENT_PRICE_MESSAGE = 'prices and names come from the catalog; send only qty';

const t = '2026-11-22T10:00:00.000Z';
const expires = '2026-11-29T10:05:00.000Z';
const CART_ID = 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10';
const ALICE = 'a11ce000-5eed-4000-8000-000000000001';
const PRODUCT = '5eed00000000000000000405';
const emptyCart = {
  cart_id: CART_ID,
  user_id: ALICE,
  session_id: null,
  zone: 'MSK',
  status: 'active',
  items: {},
  total: '0.00',
  currency: 'RUB',
  created_at: t,
  updated_at: t,
  expires_at: '2026-11-29T10:00:00.000Z',
  checkout: null,
  merged_into: null,
};
export const filledCartExample = {
  ...emptyCart,
  items: {
    [PRODUCT]: {
      name: 'Huawei Plus черный',
      qty: 2,
      unit_price: '3789.90',
      line_total: '7579.80',
      available: 44,
      purchasable: true,
    },
  },
  total: '7579.80',
  updated_at: '2026-11-22T10:05:00.000Z',
  expires_at: expires,
};

const OWNED =
  'Only the owner may use a cart: the signed-in user who created it, or the guest session that created it. ' +
  "Somebody else's cart answers 404 CARTS.CART_NOT_FOUND, exactly like an id that does not exist.";

export const createCart = endpoint({
  operationId: 'createCart',
  method: 'POST',
  path: '/carts',
  tag: 'carts',
  summary: 'Create a cart for the caller',
  description:
    'A signed-in caller gets a user cart owned by the token subject; a guest (`X-Guest-Session` from POST /guest-sessions) ' +
    'gets a guest cart owned by the session. The owner is never taken from the body. The cart lives CART_TTL_SECONDS ' +
    '(7 days) after its last change. A well-formed zone this deployment does not serve (ZONES) is refused with 422 CARTS.UNKNOWN_ZONE naming `body.zone`. ' +
    'An owner holds at most CARTS_MAX_ACTIVE_PER_OWNER (20) active carts: one more is a 409 CARTS.TOO_MANY_CARTS (check out, or let one expire).',
  access: access.userOrGuest,
  errors: [409],
  body: z.strictObject({
    zone: ZoneCode.meta({ description: 'A served zone (ZONES, default MSK, SPB, EKB)', example: 'MSK' }),
  }),
  bodyExample: { zone: 'MSK' },
  response: { status: 201, description: 'The new, empty cart', schema: CartView, example: emptyCart },
});

export const getCart = endpoint({
  operationId: 'getCart',
  method: 'GET',
  path: '/carts/:id',
  tag: 'carts',
  summary: 'A cart with its lines at current catalog prices, availability in its zone and total',
  description: `${OWNED} A cart past its lifetime answers 404 CARTS.CART_EXPIRED (its owner) or CARTS.CART_NOT_FOUND.`,
  access: access.userOrGuest,
  params: CartParams,
  response: { status: 200, description: 'The cart', schema: CartView, example: filledCartExample },
});

export const listCarts = endpoint({
  operationId: 'listCarts',
  method: 'GET',
  path: '/carts',
  tag: 'carts',
  summary: "Ids of the caller's carts in a status, newest first",
  description: 'The signed-in user’s own carts only (guest carts are reached by their id).',
  access: access.anyUser,
  rateLimit: 'reads',
  query: z.strictObject({
    status: z
      .enum(['active', 'checking_out', 'ordered', 'abandoned'])
      .default('active')
      .meta({ description: 'Cart status (default active)' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .meta({ description: 'At most this many ids (1–50, default 10)' }),
  }),
  response: {
    status: 200,
    description: 'Cart ids, newest first',
    schema: z.object({ cart_ids: z.array(z.uuid()) }),
    example: { cart_ids: [CART_ID] },
  },
});

export const putItem = endpoint({
  operationId: 'putCartItem',
  method: 'PUT',
  path: '/carts/:id/items/:product_id',
  tag: 'carts',
  summary: 'Set the quantity of one product; its name and price come from the catalog',
  description:
    `${OWNED} The body is only \`{"qty": n}\` (1–${MAX_LINE_QTY}); a client price or name (\`unit_price\`, \`price\`, \`name\`, ` +
    '`total`, `line_total`) is refused with 400 CARTS.CLIENT_PRICE_REJECTED naming the field. 404 CARTS.PRODUCT_NOT_FOUND for a ' +
    'product the catalog does not sell; 409 CARTS.INSUFFICIENT_STOCK above the known stock of the zone, CARTS.NOT_EDITABLE ' +
    'unless the cart is active, CARTS.TOO_MANY_LINES beyond CART_MAX_LINES, CARTS.CONCURRENT_CHANGE when the cart kept changing.',
  access: access.userOrGuest,
  params: ItemParams,
  body: z.strictObject({ qty: z.number().int('must be a whole number').min(1).max(MAX_LINE_QTY) }),
  bodyExample: { qty: 2 },
  unknownFieldCode: clientPriced,
  unknownFieldMessage: CLIENT_PRICE_MESSAGE,
  response: {
    status: 200,
    description: 'The cart after the change',
    schema: CartView,
    example: filledCartExample,
  },
  errors: [409],
});

export const removeItem = endpoint({
  operationId: 'removeCartItem',
  method: 'DELETE',
  path: '/carts/:id/items/:product_id',
  tag: 'carts',
  summary: 'Remove one product from the cart',
  description: `${OWNED} 409 CARTS.NOT_EDITABLE unless the cart is active.`,
  access: access.userOrGuest,
  params: ItemParams,
  response: {
    status: 200,
    description: 'The cart after the change',
    schema: CartView,
    example: { ...emptyCart, updated_at: '2026-11-22T10:05:00.000Z', expires_at: expires },
  },
  errors: [409],
});
