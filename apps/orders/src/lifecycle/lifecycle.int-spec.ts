import { DEMO_USERS, waitFor } from '@mw/testing';
import { bearer, OrderBody, OrdersHarness } from '../test/harness';

interface Problem {
  code: string;
  message: string;
}

const { alice, sue, otto } = DEMO_USERS;
const settle = (ms = 1500) => new Promise((r) => setTimeout(r, ms));

/**
 * The order's life after checkout over HTTP, with real tokens: two orders instances, real Kafka and
 * MongoDB, the PSP simulator; the test plays inventory (its replies) and watches what orders emits.
 */
describe('order lifecycle: cancel, delivery, completion (real Kafka + MongoDB + Keycloak tokens)', () => {
  const h = new OrdersHarness({ SAGA_CANCEL_TIMEOUT_MS: '60000' });

  beforeAll(() => h.start(2), 120_000);
  afterAll(() => h.stop());

  /** An order of alice's driven to CONFIRMED: reserved by "inventory", paid by the simulator, committed. */
  async function confirmedOrder(): Promise<{ order_id: string; checkout_id: string; cart_id: string }> {
    const c = h.checkout({ user_id: alice.id });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    await h.waitSeen(c.order_id, 'CommitStock');
    await h.reply('StockCommitted', { order_id: c.order_id });
    await h.waitState(c.order_id, 'CONFIRMED');
    return c;
  }

  /** A request that must be refused with this status and code (and change nothing). */
  async function expectRefused(
    path: string,
    who: Parameters<typeof bearer>[0],
    status: number,
    code: string,
  ): Promise<void> {
    const r = await post<Problem>(path, who);
    expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status, code });
  }

  const post = async <T>(path: string, who: Parameters<typeof bearer>[0], instance = 0) =>
    h.call<T>(path, await bearer(who), { method: 'POST', instance });

  it('a customer cancels a confirmed order: refund + ReturnStock, cancelled once the units are back; repeats change nothing', async () => {
    const c = await confirmedOrder();
    const r = await post<OrderBody & { stock_return: string }>(`/orders/${c.order_id}/cancel`, 'alice');
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      status: 'cancelling',
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_USER',
      stock_return: 'pending',
    });
    const [ret] = await h.waitSeen(c.order_id, 'ReturnStock');
    expect(ret).toMatchObject({
      key: c.order_id,
      correlation_id: `saga-${c.checkout_id}`,
      payload: { order_id: c.order_id, reason: 'cancelled_by_customer' },
    });
    // The refund happens; the order waits for the stock.
    await h.waitState(c.order_id, 'CANCELLING');
    await waitFor(
      async () =>
        (await h.paymentOps(c.order_id)).some((o) => o.op === 'refund' && o.outcome.status === 'refunded'),
      30_000,
      'the refund',
    );
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(0);
    const returned = await h.reply('StockReturned', {
      order_id: c.order_id,
      zone: 'MSK',
      lines: [{ product_id: c.order_id.replace(/./g, 'a'), qty: 2 }],
    });
    const order = await h.waitState(c.order_id, 'CANCELLED');
    expect(order).toMatchObject({
      status: 'cancelled',
      reason: 'CANCELLED_BY_USER',
      payment: { captured: true, reversed: 'refunded', step: null },
    });
    const [cancelled] = await h.waitSeen(c.order_id, 'OrderCancelled');
    expect(cancelled).toMatchObject({
      key: alice.id,
      payload: {
        reason: 'CANCELLED_BY_USER',
        after_confirmation: true,
        checkout_id: c.checkout_id,
        cancelled_by: { sub: alice.id, role: 'customer' },
      },
    });
    // who did each step: alice asked, the payment worker refunded, inventory returned the units
    expect(order.history.slice(-3).map((t) => `${t.event}:${t.by?.sub}:${t.by?.role}`)).toEqual([
      `CancelRequested:${alice.id}:customer`,
      'PaymentReversed:orders:payment-worker:system',
      'StockReturned:inventory:system',
    ]);
    // The same request again (on the other instance), and StockReturned again — the same message redelivered,
    // and a copy under a new envelope id, as inventory answers a repeated ReturnStock: no new transition, no new event.
    const again = await post<OrderBody>(`/orders/${c.order_id}/cancel`, 'alice', 1);
    expect({ status: again.status, state: again.body.state, version: again.body.version }).toEqual({
      status: 202,
      state: 'CANCELLED',
      version: order.version,
    });
    await h.reply(
      'StockReturned',
      { order_id: c.order_id, zone: 'MSK', lines: [{ product_id: c.order_id.replace(/./g, 'a'), qty: 2 }] },
      returned,
    );
    const resent = await h.reply('StockReturned', {
      order_id: c.order_id,
      zone: 'MSK',
      lines: [{ product_id: c.order_id.replace(/./g, 'a'), qty: 2 }],
    });
    expect(resent).not.toBe(returned);
    await settle();
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(1);
    expect(h.for(c.order_id, 'ReturnStock')).toHaveLength(1);
    expect((await h.order(c.order_id)).body.version).toBe(order.version);
    const refunds = (await h.paymentOps(c.order_id)).filter((o) => o.op === 'refund');
    expect(refunds).toHaveLength(1);
  });

  it("only the owner or support cancels: somebody else's order is 404, an operator is 403; support's cancel says so and names sue", async () => {
    const c = await confirmedOrder();
    await expectRefused(`/orders/${c.order_id}/cancel`, 'bob', 404, 'ORDERS.ORDER_NOT_FOUND');
    await expectRefused(`/orders/${c.order_id}/cancel`, 'otto', 403, 'AUTH.FORBIDDEN');
    expect((await h.order(c.order_id)).body.state).toBe('CONFIRMED');
    const bySupport = await post<OrderBody>(`/orders/${c.order_id}/cancel`, 'sue');
    expect({ status: bySupport.status, state: bySupport.body.state, reason: bySupport.body.reason }).toEqual({
      status: 202,
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_SUPPORT',
    });
    expect(bySupport.body.history.at(-1)).toMatchObject({
      event: 'CancelRequested',
      by: { sub: sue.id, role: 'support' },
    });
    await h.waitSeen(c.order_id, 'ReturnStock');
    await h.reply('StockReturned', {
      order_id: c.order_id,
      zone: 'MSK',
      lines: [{ product_id: c.order_id.replace(/./g, 'a'), qty: 2 }],
    });
    await h.waitState(c.order_id, 'CANCELLED');
    const [cancelled] = await h.waitSeen(c.order_id, 'OrderCancelled');
    expect(cancelled!.payload).toMatchObject({
      reason: 'CANCELLED_BY_SUPPORT',
      after_confirmation: true,
      cancelled_by: { sub: sue.id, role: 'support' },
    });
  });

  it('delivery: the operator starts it (concurrent repeats on both instances make one transition), then a cancel is refused (409), then completion', async () => {
    const c = await confirmedOrder();
    await expectRefused(`/orders/${c.order_id}/delivery`, 'alice', 403, 'AUTH.FORBIDDEN');
    await expectRefused(`/orders/${c.order_id}/completion`, 'otto', 409, 'ORDERS.ILLEGAL_TRANSITION');
    const starts = await Promise.all(
      [0, 1, 0, 1, 0, 1].map((i) => post<OrderBody>(`/orders/${c.order_id}/delivery`, 'otto', i)),
    );
    expect(starts.map((s) => `${s.status}:${s.body.state}`)).toEqual(Array(6).fill('200:DELIVERING'));
    await expectRefused(`/orders/${c.order_id}/cancel`, 'alice', 409, 'ORDERS.CANCEL_REFUSED');
    const done = await post<OrderBody>(`/orders/${c.order_id}/completion`, 'otto');
    expect({ status: done.status, state: done.body.state, order_status: done.body.status }).toEqual({
      status: 200,
      state: 'COMPLETED',
      order_status: 'completed',
    });
    expect(
      done.body.history.slice(-2).map((t) => `${t.from}>${t.to}:${t.event}:${t.by?.sub}:${t.by?.role}`),
    ).toEqual([
      `CONFIRMED>DELIVERING:DeliveryStarted:${otto.id}:operator`,
      `DELIVERING>COMPLETED:DeliveryCompleted:${otto.id}:operator`,
    ]);
    await h.waitSeen(c.order_id, 'OrderCompleted');
    await settle();
    expect(h.for(c.order_id, 'OrderDeliveryStarted')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCompleted')).toHaveLength(1);
    await expectRefused(`/orders/${c.order_id}/cancel`, 'alice', 409, 'ORDERS.CANCEL_REFUSED');
  });

  it('a cancel while waiting for stock releases at once; handing a pending order to delivery is refused', async () => {
    const c = h.checkout({ user_id: alice.id });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await expectRefused(`/orders/${c.order_id}/delivery`, 'otto', 409, 'ORDERS.ILLEGAL_TRANSITION');
    const r = await post<OrderBody>(`/orders/${c.order_id}/cancel`, 'alice');
    expect({ status: r.status, state: r.body.state, reason: r.body.reason }).toEqual({
      status: 202,
      state: 'CANCELLED',
      reason: 'CANCELLED_BY_USER',
    });
    await h.waitSeen(c.order_id, 'ReleaseStock');
    const [cancelled] = await h.waitSeen(c.order_id, 'OrderCancelled');
    expect(cancelled!.payload).toMatchObject({ reason: 'CANCELLED_BY_USER', after_confirmation: false });
    expect(h.for(c.order_id, 'ReturnStock')).toHaveLength(0);
  });

  it('malformed and unknown ids: 400 naming the field, 404 for an order nobody has', async () => {
    const bad = await post<Problem & { errors: { field: string }[] }>('/orders/not-an-id/cancel', 'alice');
    expect({ status: bad.status, fields: bad.body.errors.map((e) => e.field) }).toEqual({
      status: 400,
      fields: ['params.id'],
    });
    await expectRefused('/orders/65f000000000000000000099/delivery', 'otto', 404, 'ORDERS.ORDER_NOT_FOUND');
  });
});
