/** The HTTP shape of a cart: money as decimal strings, lines at the catalog's current price. */
import { formatMoney } from '@mw/platform';
import type { PricedProduct, StockLevel } from '../products/product';
import type { Cart } from './cart';

export interface CartLineView {
  readonly name: string;
  readonly qty: number;
  /** The catalog's current price; null when the catalog no longer sells the product. */
  readonly unit_price: string | null;
  readonly line_total: string | null;
  /** Units in the cart's zone as last reported by inventory; null when unknown. Advisory. */
  readonly available: number | null;
  readonly purchasable: boolean;
}

export interface CartView {
  readonly cart_id: string;
  readonly user_id: string | null;
  readonly session_id: string | null;
  readonly zone: string;
  readonly status: Cart['status'];
  readonly items: Readonly<Record<string, CartLineView>>;
  readonly total: string;
  readonly currency: 'RUB';
  readonly created_at: string;
  readonly updated_at: string;
  readonly expires_at: string;
  /** The snapshot taken at checkout (prices at that moment), while the cart is on a checkout. */
  readonly checkout: {
    readonly checkout_id: string;
    readonly lines: readonly { product_id: string; name: string; qty: number; unit_price: string }[];
    readonly total: string;
  } | null;
}

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
  };
}

export function checkoutView(c: NonNullable<Cart['checkout']>): NonNullable<CartView['checkout']> {
  return {
    checkout_id: c.checkout_id,
    lines: c.lines.map((l) => ({ product_id: l.product_id, name: l.name, qty: l.qty, unit_price: formatMoney(l.unit_price) })),
    total: formatMoney(c.total),
  };
}
