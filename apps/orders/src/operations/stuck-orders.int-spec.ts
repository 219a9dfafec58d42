import { bearer, OrdersHarness } from '../test/harness';

interface Report {
  grace_seconds: number;
  orders: {
    order_id: string;
    state: string;
    deadline: string;
    overdue_seconds: number;
    total: string;
    zone: string;
  }[];
}

/**
 * GET /operations/stuck-orders on the real replica set, Kafka and Keycloak tokens. The sweeper's
 * interval is 100 s here (grace 30 min: 18 intervals, overdueGraceMs) and the stock deadlines an hour
 * ahead (a deadline set in-process wakes the sweeper at it), so the sweeper fires nothing during the
 * test, and the test decides what is overdue by moving deadlines in
 * MongoDB: one order two hours past its deadline (stuck), one a minute past (within the grace:
 * the sweeper still has passes to fire it), one waiting with its deadline ahead.
 */
describe('operator: orders stuck past their saga deadline (real MongoDB + Kafka + Keycloak tokens)', () => {
  const h = new OrdersHarness({ SAGA_SWEEP_INTERVAL_MS: '100000', SAGA_STOCK_TIMEOUT_MS: '3600000' });

  beforeAll(() => h.start(1), 120_000);
  afterAll(() => h.stop());

  const awaitingStock = async (): Promise<string> => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    return c.order_id;
  };
  const deadlineAgo = (id: string, ms: number) =>
    h.db
      .collection<{ _id: string }>('orders')
      .updateOne({ _id: id }, { $set: { 'saga.deadline': new Date(Date.now() - ms) } });

  it('lists only the orders whose deadline passed more than the grace ago, to operators only', async () => {
    const stuck = await awaitingStock();
    const recent = await awaitingStock();
    const waiting = await awaitingStock();
    await deadlineAgo(stuck, 2 * 3600_000);
    await deadlineAgo(recent, 60_000);

    const r = await h.call<Report>('/operations/stuck-orders', await bearer('otto'));
    expect(r.status).toBe(200);
    expect(r.body.grace_seconds).toBe(1800);
    const ids = r.body.orders.map((o) => o.order_id);
    expect(ids).toContain(stuck);
    expect(ids).not.toContain(recent);
    expect(ids).not.toContain(waiting);
    expect(r.body.orders.find((o) => o.order_id === stuck)).toMatchObject({
      state: 'AWAITING_STOCK',
      zone: 'MSK',
      total: '39998.00',
    });
    expect(r.body.orders.find((o) => o.order_id === stuck)?.overdue_seconds).toBeGreaterThanOrEqual(7200);

    // `limit` bounds the answer, longest overdue first
    await deadlineAgo(recent, 3 * 3600_000);
    const one = await h.call<Report>('/operations/stuck-orders?limit=1', await bearer('otto'));
    expect(one.body.orders.map((o) => o.order_id)).toEqual([recent]);
  });

  it('refuses support (403) and a caller without a token (401)', async () => {
    const support = await h.call<{ code: string }>('/operations/stuck-orders', await bearer('sue'));
    expect(support.status).toBe(403);
    const customer = await h.call<{ code: string }>('/operations/stuck-orders', await bearer('alice'));
    expect(customer.status).toBe(403);
    const anonymous = await h.call<{ code: string }>('/operations/stuck-orders', {});
    expect(anonymous.status).toBe(401);
  });
});
