import { Carts } from '@mw/contracts';
import { OrderStatus, Saga, SagaTimeouts, startSaga } from '../saga/saga';

export type { OrderStatus };

export interface OrderItem {
  readonly product_id: string;
  readonly name: string;
  readonly category_id?: string;
  /** Unit price snapshot, minor units. */
  readonly price: number;
  readonly qty: number;
}

export interface Order {
  readonly id: string;
  readonly checkout_id: string;
  readonly cart_id: string;
  readonly user_id: string;
  readonly zone: string;
  readonly items: readonly OrderItem[];
  readonly total: number;
  readonly currency: 'RUB';
  readonly status: OrderStatus;
  /** The checkout saga: state, reason, deadline, payment progress, transition history. */
  readonly saga: Saga;
  /** Correlation id of the checkout: every message of this saga carries it. */
  readonly correlation_id: string;
  readonly order_date: Date;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly version: number;
  /** When the payment reconciliation found a cancelled order's PSP state consistent (absent: not yet). */
  readonly payment_reconciled_at?: Date | null;
  /**
   * W3C trace context of the checkout (ADR 0014), written with the order: the payment worker and the
   * deadline sweeper continue the checkout's trace from it; its trace id finds the trace in Zipkin.
   * Absent with tracing off.
   */
  readonly traceparent?: string;
}

type CheckoutRequested = Carts.CheckoutRequestedPayload;

export type RejectCode = 'ZONE_NOT_SERVED' | 'TOTAL_MISMATCH';

export type OrderDecision =
  | { readonly ok: true; readonly order: Order }
  | { readonly ok: false; readonly code: RejectCode; readonly field: string; readonly message: string };

/**
 * The order id is derived from the checkout id, so a redelivered CheckoutRequested maps to the
 * same order and the unique _id makes the duplicate a no-op. The derivation is the contract's
 * (`Carts.orderIdOfCheckout`): carts names the same id in its checkout answer.
 */
export const orderIdFromCheckout = Carts.orderIdOfCheckout;

/** Decides whether a checkout can become an order (served zone, consistent total); the saga starts waiting for stock. */
export function orderFromCheckout(
  c: CheckoutRequested,
  zones: readonly string[],
  now: Date,
  timeouts: SagaTimeouts,
  correlationId: string,
): OrderDecision {
  if (!zones.includes(c.zone))
    return {
      ok: false,
      code: 'ZONE_NOT_SERVED',
      field: 'zone',
      message: `zone ${c.zone} is not served (${zones.join(', ')})`,
    };
  const total = c.lines.reduce((sum, l) => sum + l.unit_price * l.qty, 0);
  if (!Number.isSafeInteger(total) || total !== c.total) {
    return {
      ok: false,
      code: 'TOTAL_MISMATCH',
      field: 'total',
      message: `total ${c.total} does not match the lines (${total})`,
    };
  }
  return {
    ok: true,
    order: {
      id: orderIdFromCheckout(c.checkout_id),
      checkout_id: c.checkout_id,
      cart_id: c.cart_id,
      user_id: c.user_id,
      zone: c.zone,
      items: c.lines.map((l) => ({
        product_id: l.product_id.toLowerCase(),
        name: l.name,
        category_id: l.category_id,
        price: l.unit_price,
        qty: l.qty,
      })),
      total,
      currency: 'RUB',
      status: 'pending',
      saga: startSaga(now, timeouts),
      correlation_id: correlationId,
      order_date: now,
      created_at: now,
      updated_at: now,
      version: 1,
    },
  };
}

/** ReserveStock lines: one per product (inventory refuses repeated products), quantities summed. */
export function stockLinesOf(items: readonly OrderItem[]): { product_id: string; qty: number }[] {
  const byProduct = new Map<string, number>();
  for (const i of items) byProduct.set(i.product_id, (byProduct.get(i.product_id) ?? 0) + i.qty);
  return [...byProduct].map(([product_id, qty]) => ({ product_id, qty }));
}
