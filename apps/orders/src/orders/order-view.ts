import { formatMoney } from '@mw/platform';
import { Order } from './order';

/** An order at the HTTP edge: money as decimal strings, the saga's state, reason and transition history. */
export function orderView(o: Order) {
  const s = o.saga;
  return {
    id: o.id,
    checkout_id: o.checkout_id,
    cart_id: o.cart_id,
    user_id: o.user_id,
    zone: o.zone,
    status: o.status,
    state: s.state,
    reason: s.reason,
    deadline: s.deadline,
    lines: o.items.map((i) => ({ product_id: i.product_id, name: i.name, category_id: i.category_id ?? null, qty: i.qty, unit_price: formatMoney(i.price), line_total: formatMoney(i.price * i.qty) })),
    totals: { items: o.items.reduce((n, i) => n + i.qty, 0), total: formatMoney(o.total), currency: o.currency },
    payment: {
      step: s.payment.step,
      authorized: s.payment.authorized,
      captured: s.payment.captured,
      reversed: s.payment.reversed,
      decline_code: s.payment.decline_code,
    },
    stock_failure: s.stock.failure,
    history: s.history.map((h) => ({ from: h.from, to: h.to, event: h.event, cause: h.cause, at: h.at })),
    order_date: o.order_date,
    created_at: o.created_at,
    updated_at: o.updated_at,
    version: o.version,
  };
}

/** One line of a user's history. */
export function orderSummary(o: Order) {
  return { id: o.id, status: o.status, state: o.saga.state, reason: o.saga.reason, zone: o.zone, total: formatMoney(o.total), currency: o.currency, order_date: o.order_date };
}
