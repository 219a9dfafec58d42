/** The HTTP shape of a cart: money as decimal strings, lines at the catalog's current price. */
import { z } from 'zod';
import { formatMoney } from '@mw/platform';
import type { PricedProduct, StockLevel } from '../products/product';
import type { Cart } from './cart';

const Money = z.string().regex(/^\d+\.\d{2}$/).meta({ description: 'Roubles as a decimal string', example: '3789.90' });
const ProductId = z.string().regex(/^[0-9a-fA-F]{24}$/);

export const CartLineView = z.object({
  name: z.string(),
  qty: z.number().int().min(1),
  unit_price: Money.nullable().meta({ description: "The catalog's current price; null when the catalog no longer sells the product" }),
  line_total: Money.nullable(),
  available: z.number().int().nullable().meta({ description: "Units in the cart's zone as last reported by inventory; null when unknown. Advisory" }),
  purchasable: z.boolean(),
});
export type CartLineView = z.output<typeof CartLineView>;

export const CheckoutLineView = z.object({ product_id: ProductId, name: z.string(), qty: z.number().int().min(1), unit_price: Money });

export const CartView = z
  .object({
    cart_id: z.uuid(),
    user_id: z.string().nullable().meta({ description: 'The owner of a user cart (the token subject); null for a guest cart' }),
    session_id: z.uuid().nullable().meta({ description: 'The guest session owning a guest cart; null for a user cart' }),
    zone: z.string(),
    status: z.enum(['active', 'checking_out', 'ordered', 'abandoned', 'merging', 'merged']),
    items: z.record(ProductId, CartLineView),
    total: Money,
    currency: z.literal('RUB'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    expires_at: z.iso.datetime().meta({ description: 'CART_TTL_SECONDS after the last change' }),
    checkout: z
      .object({ checkout_id: z.uuid(), lines: z.array(CheckoutLineView), total: Money })
      .nullable()
      .meta({ description: 'The snapshot taken at checkout (prices at that moment), while the cart is on a checkout' }),
    merged_into: z.uuid().nullable().meta({ description: "A guest cart merged (or merging) into a user's cart on login: that cart's id" }),
  })
  .meta({ description: 'A cart priced at the catalog’s current prices' });
export type CartView = z.output<typeof CartView>;

export function cartView(cart: Cart, products: ReadonlyMap<string, PricedProduct>, stock: ReadonlyMap<string, StockLevel>): CartView {
  const items: Record<string, CartLineView> = {};
  let total = 0;
  for (const [pid, line] of Object.entries(cart.items)) {
    const p = products.get(pid);
    if (p) total += p.price * line.qty;
    items[pid] = {
      name: p?.name ?? line.name,
      qty: line.qty,
      unit_price: p ? formatMoney(p.price) : null,
      line_total: p ? formatMoney(p.price * line.qty) : null,
      available: stock.get(pid)?.available ?? null,
      purchasable: p !== undefined,
    };
  }
  return {
    cart_id: cart.cart_id,
    user_id: cart.user_id,
    session_id: cart.session_id,
    zone: cart.zone,
    status: cart.status,
    items,
    total: formatMoney(total),
    currency: 'RUB',
    created_at: cart.created_at.toISOString(),
    updated_at: cart.updated_at.toISOString(),
    expires_at: cart.expires_at.toISOString(),
    checkout: cart.checkout && cart.status !== 'active' ? checkoutView(cart.checkout) : null,
    merged_into: cart.merge?.into_cart_id ?? null,
  };
}

export function checkoutView(c: NonNullable<Cart['checkout']>): NonNullable<CartView['checkout']> {
  return {
    checkout_id: c.checkout_id,
    lines: c.lines.map((l) => ({ product_id: l.product_id, name: l.name, qty: l.qty, unit_price: formatMoney(l.unit_price) })),
    total: formatMoney(c.total),
  };
}
