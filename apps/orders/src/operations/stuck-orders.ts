import { formatMoney } from '@mw/platform';
import type { Order } from '../orders/order';
import type { SagaState } from '../saga/saga';

/** One order the deadline sweeper should have moved on by now. */
export interface StuckOrder {
  readonly order_id: string;
  readonly user_id: string;
  readonly zone: string;
  readonly state: SagaState;
  readonly deadline: string;
  readonly overdue_seconds: number;
  readonly total: string;
  readonly updated_at: string;
}

export interface StuckOrdersReport {
  readonly as_of: string;
  readonly grace_seconds: number;
  readonly orders: StuckOrder[];
}

/**
 * The answer for orders found waiting in a saga state whose deadline passed more than `graceMs`
 * before `now` (the repository's query) — the same rule as the `orders_saga_overdue` gauge
 * (overdueGraceMs): the sweeper has had several passes to fire the deadline, so one still there is
 * stuck (the sweeper is down or fails on it).
 */
export function stuckOrdersReport(orders: readonly Order[], now: Date, graceMs: number): StuckOrdersReport {
  const stuck = orders.flatMap((o): StuckOrder[] => {
    const deadline = o.saga.deadline;
    if (!deadline) return [];
    return [
      {
        order_id: o.id,
        user_id: o.user_id,
        zone: o.zone,
        state: o.saga.state,
        deadline: deadline.toISOString(),
        overdue_seconds: Math.floor((now.getTime() - deadline.getTime()) / 1000),
        total: formatMoney(o.total),
        updated_at: o.updated_at.toISOString(),
      },
    ];
  });
  return { as_of: now.toISOString(), grace_seconds: Math.round(graceMs / 1000), orders: stuck };
}
