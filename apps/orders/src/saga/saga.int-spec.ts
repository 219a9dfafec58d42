import { collectFrom, header, uniqueName } from '@mw/testing';
import { OrdersHarness } from '../test/harness';

const declinedUser = uniqueName('declined');
const hungUser = uniqueName('hung');
const settle = (ms = 1500) => new Promise((r) => setTimeout(r, ms));

/**
 * The checkout saga end to end inside orders: two real instances (one consumer group, both running
 * the payment worker and the deadline sweeper), real Kafka and MongoDB; the test plays carts and
 * inventory on private topics and observes the commands and order events orders emits.
 */
describe('checkout saga (real Kafka + MongoDB, two orders instances)', () => {
  const h = new OrdersHarness({
    SAGA_STOCK_TIMEOUT_MS: '8000',
    SAGA_PAYMENT_TIMEOUT_MS: '5000',
    SAGA_COMMIT_TIMEOUT_MS: '60000',
    SAGA_CANCEL_TIMEOUT_MS: '60000',
    PAYMENT_SIM_DECLINE_USERS: declinedUser,
    PAYMENT_SIM_HANG_USERS: hungUser,
  });

  beforeAll(() => h.start(2), 120_000);
  afterAll(() => h.stop());

  it('happy path: one order per checkout, ReserveStock → one sale (authorize + capture) → CONFIRMED with OrderConfirmed and the sale (CommitStock, answered only on failure)', async () => {
    const c = h.checkout();
    await h.sendCheckout(c, 2);
    const [reserve] = await h.waitSeen(c.order_id, 'ReserveStock');
    expect(reserve).toMatchObject({ key: c.order_id, correlation_id: `saga-${c.checkout_id}`, payload: { zone: 'MSK', lines: [{ product_id: c.lines[0]!.product_id, qty: 2 }], hold_seconds: 900 } });
    await h.reserved(c);
    const [sale] = await h.waitSeen(c.order_id, 'CommitStock');
    expect(sale).toMatchObject({ key: c.order_id, payload: { order_id: c.order_id, reply: 'failure_only' } });
    const ops = await h.paymentOps(c.order_id);
    expect(ops.map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['sale:captured']);
    const order = await h.waitState(c.order_id, 'CONFIRMED'); // no StockCommitted awaited
    expect(order).toMatchObject({ status: 'confirmed', reason: null, totals: { items: 2, total: '39998.00', currency: 'RUB' }, payment: { authorized: true, captured: true, reversed: null } });
    expect(order.lines).toEqual([expect.objectContaining({ qty: 2, unit_price: '19999.00', line_total: '39998.00' })]);
    expect(order.history.map((t) => `${t.from}>${t.to}:${t.event}`)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT:StockReserved',
      'AWAITING_PAYMENT>CONFIRMED:PaymentCaptured',
    ]);
    const [confirmed] = await h.waitSeen(c.order_id, 'OrderConfirmed');
    expect(confirmed).toMatchObject({ key: c.user_id, correlation_id: `saga-${c.checkout_id}`, payload: { checkout_id: c.checkout_id, cart_id: c.cart_id } });
    await settle();
    expect(h.for(c.order_id, 'ReserveStock')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCreated')).toHaveLength(1);
    expect(h.for(c.order_id, 'ReleaseStock')).toHaveLength(0);
  });

  it('stock rejected: CANCELLED with STOCK_REJECTED; a StockReserved arriving afterwards is released again', async () => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reply('StockRejected', { order_id: c.order_id, code: 'INVENTORY.INSUFFICIENT_STOCK', shortages: [{ product_id: c.lines[0]!.product_id, requested: 2, available: 1 }] });
    const order = await h.waitState(c.order_id, 'CANCELLED');
    expect(order).toMatchObject({ status: 'cancelled', reason: 'STOCK_REJECTED' });
    const [cancelled] = await h.waitSeen(c.order_id, 'OrderCancelled');
    expect(cancelled!.payload).toMatchObject({ reason: 'STOCK_REJECTED', checkout_id: c.checkout_id });
    expect(h.for(c.order_id, 'ReleaseStock')).toHaveLength(0);
    await h.reserved(c); // late and out of order
    await h.waitSeen(c.order_id, 'ReleaseStock');
    expect((await h.paymentOps(c.order_id)).length).toBe(0);
  });

  it('payment declined: stock released, CANCELLED with PAYMENT_DECLINED, nothing captured', async () => {
    const c = h.checkout({ user_id: declinedUser });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    await h.waitSeen(c.order_id, 'ReleaseStock');
    const order = await h.waitState(c.order_id, 'CANCELLED');
    expect(order).toMatchObject({ reason: 'PAYMENT_DECLINED', payment: { authorized: false, captured: false, decline_code: 'USER_BLOCKED' } });
    expect((await h.waitSeen(c.order_id, 'OrderCancelled'))[0]!.payload['reason']).toBe('PAYMENT_DECLINED');
    expect((await h.paymentOps(c.order_id)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['sale:declined']);
    expect(h.for(c.order_id, 'CommitStock')).toHaveLength(0);
  });

  it('payment never answers: the deadline releases the stock, reverses the sale (a refund of nothing, then a void) and cancels with PAYMENT_DEADLINE_EXCEEDED', async () => {
    const c = h.checkout({ user_id: hungUser });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    const order = await h.waitState(c.order_id, 'CANCELLED', 30_000);
    expect(order).toMatchObject({ reason: 'PAYMENT_DEADLINE_EXCEEDED', payment: { reversed: 'voided' } });
    expect(order.history.map((t) => `${t.from}>${t.to}:${t.event}`)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT:StockReserved',
      'AWAITING_PAYMENT>CANCELLING:DeadlinePassed',
      'CANCELLING>CANCELLED:PaymentReversed',
    ]);
    await h.waitSeen(c.order_id, 'ReleaseStock');
    expect((await h.paymentOps(c.order_id)).map((o) => `${o.op}:${o.outcome.status}`).sort()).toEqual(['refund:not_captured', 'void:voided']);
    expect((await h.waitSeen(c.order_id, 'OrderCancelled'))[0]!.payload['reason']).toBe('PAYMENT_DEADLINE_EXCEEDED');
  });

  it('confirmed but its sale failed (the hold gone): the capture is refunded and the order CANCELLED with COMMIT_FAILED after confirmation', async () => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    await h.waitSeen(c.order_id, 'CommitStock');
    await h.waitState(c.order_id, 'CONFIRMED');
    await h.reply('StockCommitFailed', { order_id: c.order_id, code: 'INVENTORY.RESERVATION_EXPIRED' });
    const order = await h.waitState(c.order_id, 'CANCELLED');
    expect(order).toMatchObject({ reason: 'COMMIT_FAILED', payment: { captured: true, reversed: 'refunded' } });
    expect((await h.paymentOps(c.order_id)).map((o) => `${o.op}:${o.outcome.status}`).sort()).toEqual(['refund:refunded', 'sale:captured']);
    expect((await h.waitSeen(c.order_id, 'OrderCancelled'))[0]!.payload).toMatchObject({ reason: 'COMMIT_FAILED', after_confirmation: true });
    expect(h.for(c.order_id, 'OrderConfirmed')).toHaveLength(1);
    expect(h.for(c.order_id, 'ReturnStock')).toHaveLength(0); // nothing was sold
  });

  it('duplicated and reordered replies change nothing: one capture, one CommitStock, one OrderConfirmed, no release of a confirmed order', async () => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    const first = await h.reserved(c);
    await h.reserved(c, undefined, first); // the same message redelivered
    await h.reserved(c); // a second copy with its own id
    await h.waitSeen(c.order_id, 'CommitStock');
    await h.waitState(c.order_id, 'CONFIRMED');
    // an inventory answering the sale anyway (an older version), twice: nothing changes
    const committed = await h.reply('StockCommitted', { order_id: c.order_id });
    await h.reply('StockCommitted', { order_id: c.order_id }, committed);
    await h.reserved(c); // late
    await settle(2500);
    expect(h.for(c.order_id, 'CommitStock')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderConfirmed')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(0);
    expect(h.for(c.order_id, 'ReleaseStock')).toHaveLength(0);
    const ops = await h.paymentOps(c.order_id);
    expect(ops.map((o) => o.op)).toEqual(['sale']);
    expect((await h.order(c.order_id)).body).toMatchObject({ state: 'CONFIRMED', payment: { reversed: null } });
  });

  it('an invalid checkout is answered with OrderRejected (and dead-lettered); no order is created', async () => {
    const c = h.checkout({ zone: 'NSK' });
    await h.sendCheckout(c, 2);
    const rejected = await collectFrom(h.kafka, [h.config.ORDERS_EVENTS_TOPIC], (all) => all.some((m) => m.message.value?.toString().includes(c.checkout_id)), 60_000);
    const mine = rejected.filter((m) => m.message.value?.toString().includes(c.checkout_id));
    const body = JSON.parse(mine[0]!.message.value!.toString()) as { type: string; payload: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'OrderRejected', payload: { checkout_id: c.checkout_id, cart_id: c.cart_id, user_id: c.user_id, code: 'ZONE_NOT_SERVED', field: 'zone' } });
    expect(mine[0]!.message.key?.toString()).toBe(c.user_id);
    const dlq = await collectFrom(h.kafka, [`${h.config.ORDERS_CHECKOUT_TOPIC}.dlq`], (all) => all.filter((m) => m.message.value?.toString().includes(c.checkout_id)).length >= 2, 60_000);
    expect(header(dlq[0]!.message, 'x-dlq-error-code')).toBe('ORDERS.INVALID_CHECKOUT');
    await settle();
    expect(h.seen.filter((s) => s.payload['checkout_id'] === c.checkout_id && s.type === 'OrderRejected')).toHaveLength(1);
    expect((await h.order(c.order_id)).status).toBe(404);
  });

  it('passes over inventory events it does not follow by their type header, unparsed; an unparsable reply it follows is dead-lettered', async () => {
    const level = uniqueName('level');
    const reply = uniqueName('reply');
    const producer = h.kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      // one partition (one key), the level first: were it parsed, it would reach the DLQ before the reply
      await producer.send({
        topic: h.config.INVENTORY_EVENTS_TOPIC,
        acks: -1,
        messages: [
          { key: level, value: `{${level}`, headers: { 'x-message-type': 'StockLevelChanged' } },
          { key: level, value: `{${reply}`, headers: { 'x-message-type': 'StockReserved' } },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const dlq = await collectFrom(h.kafka, [`${h.config.INVENTORY_EVENTS_TOPIC}.dlq`], (all) => all.some((m) => m.message.value?.toString().includes(reply)), 60_000);
    expect(header(dlq.find((m) => m.message.value?.toString().includes(reply))!.message, 'x-dlq-error-code')).toBe('COMMON.UNPARSEABLE_MESSAGE');
    expect(dlq.filter((m) => m.message.value?.toString().includes(level))).toHaveLength(0);
  });

  it('no stock reply: on two instances the deadline fires once — one ReleaseStock, one OrderCancelled (STOCK_DEADLINE_EXCEEDED)', async () => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    const order = await h.waitState(c.order_id, 'CANCELLED', 30_000);
    expect(order.reason).toBe('STOCK_DEADLINE_EXCEEDED');
    expect(order.history.filter((t) => t.event === 'DeadlinePassed')).toHaveLength(1);
    await settle(2000);
    expect(h.for(c.order_id, 'ReleaseStock')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(1);
    expect((await h.order(c.order_id, 1)).body.version).toBe(order.version);
  });
});
