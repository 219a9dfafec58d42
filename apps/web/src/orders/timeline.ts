/**
 * When the order page polls: every second while the saga still moves (a wait with a deadline,
 * money or stock still going back), every 10 s when it rests but can still change (confirmed or
 * delivering), never once it is over.
 */
import type { paths } from '../api/generated/orders';

export type Order = paths['/orders/{id}']['get']['responses'][200]['content']['application/json'];

export function pollInterval(
  o: Pick<Order, 'state' | 'payment' | 'stock_return'> | undefined,
): number | false {
  if (!o) return 1000;
  const settling = o.payment.step !== null || o.stock_return === 'pending';
  switch (o.state) {
    case 'AWAITING_STOCK':
    case 'AWAITING_PAYMENT':
    case 'COMMITTING':
    case 'CANCELLING':
      return 1000;
    case 'CONFIRMED':
    case 'DELIVERING':
      return settling ? 1000 : 10_000;
    case 'COMPLETED':
    case 'CANCELLED':
      return settling ? 1000 : false;
  }
}

/** Cancel is offered before delivery starts (the service decides; a late click gets its 409). */
export const cancellable = (o: Pick<Order, 'status'>): boolean =>
  o.status === 'pending' || o.status === 'confirmed';
