/** Cart rules, free of framework and driver code. */
export type CartStatus = 'active' | 'checking_out' | 'ordered' | 'abandoned';

export interface CartLine {
  readonly name: string;
  readonly qty: number;
  /** Price snapshot at the time the item was put, minor units. */
  readonly unit_price: number;
}

export interface Cart {
  readonly cart_id: string;
  readonly user_id: string | null;
  readonly session_id: string | null;
  readonly zone: string;
  readonly status: CartStatus;
  readonly items: Readonly<Record<string, CartLine>>;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface CartView extends Cart {
  readonly total: number;
  readonly currency: 'RUB';
}

export function withTotal(cart: Cart): CartView {
  const total = Object.values(cart.items).reduce((sum, l) => sum + l.qty * l.unit_price, 0);
  return { ...cart, total, currency: 'RUB' };
}

/** The order outcome that moves a cart out of checkout (saga step 5). */
export function statusAfterOrder(event: 'OrderConfirmed' | 'OrderCancelled'): CartStatus {
  return event === 'OrderConfirmed' ? 'ordered' : 'active';
}

/** Items may change only while the cart is active. */
export function canEditItems(status: CartStatus): boolean {
  return status === 'active';
}
