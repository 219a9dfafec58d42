import { z } from 'zod';
import { access, endpoint } from '@mw/platform';
import { CheckoutLineView } from '../carts/cart-view';

const Money = z.string().regex(/^\d+\.\d{2}$/);

export const CheckoutAnswerBody = z.object({
  cart_id: z.uuid(),
  checkout_id: z.uuid(),
  order_id: z
    .string()
    .regex(/^[0-9a-f]{24}$/)
    .meta({
      description:
        'The order this checkout becomes: orders creates it under this id when it reads the checkout ' +
        '(GET /orders/{id} answers 404 until then, for a moment — and for good if orders rejects the checkout)',
    }),
  status: z
    .enum(['active', 'checking_out', 'ordered', 'abandoned', 'merging', 'merged'])
    .meta({ description: "The cart's status now" }),
  lines: z
    .array(CheckoutLineView)
    .meta({
      description: "The checkout's priced lines (empty when the cart has since moved to another checkout)",
    }),
  total: Money,
  currency: z.literal('RUB'),
});

const example = {
  cart_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10',
  checkout_id: '49ad3c1e-7b2f-4c0a-9e51-0d8b6f3a2c77',
  order_id: 'a430809c8c669b222d050cff',
  status: 'checking_out',
  lines: [
    { product_id: '5eed00000000000000000405', name: 'Huawei Plus черный', qty: 2, unit_price: '3789.90' },
  ],
  total: '7579.80',
  currency: 'RUB',
};

export const checkoutCart = endpoint({
  operationId: 'checkoutCart',
  method: 'POST',
  path: '/carts/:id/checkout',
  tag: 'carts',
  summary: 'Check the cart out at current catalog prices',
  description:
    'Only the signed-in owner (role customer) checks a cart out: the order belongs to a user, whose id travels in ' +
    'CheckoutRequested from the token subject. A guest signs in first (and merges the guest cart: POST /carts/merge). ' +
    "Somebody else's cart answers 404 CARTS.CART_NOT_FOUND. 202 starts a checkout (new checkout_id); 200 answers a " +
    'checkout already started (a repeat, or the same `Idempotency-Key` header: 1–128 of `A-Za-z0-9._:-`, else 400 naming ' +
    '`headers.idempotency-key`). 409 CARTS.NOT_CHECKOUTABLE (ordered/abandoned), CARTS.PRODUCT_UNAVAILABLE, ' +
    'CARTS.CONCURRENT_CHANGE; 422 CARTS.EMPTY_CART, CARTS.TOO_MANY_LINES, CARTS.UNKNOWN_ZONE.',
  access: access.roles('customer'),
  params: z.strictObject({ id: z.uuid().meta({ description: 'Cart id (uuid)' }) }),
  response: {
    status: 202,
    description: 'A checkout started: CheckoutRequested is on its way to orders',
    schema: CheckoutAnswerBody,
    example,
  },
  otherResponses: {
    200: {
      description: 'The checkout this cart (or this Idempotency-Key) already started',
      schema: CheckoutAnswerBody,
    },
  },
  errors: [409, 422],
});
