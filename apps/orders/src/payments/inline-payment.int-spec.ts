import { OrdersHarness } from '../test/harness';

/**
 * The app's wiring of inline payment steps: with the poller slowed to a minute, a reserved order is
 * paid (one sale: authorized and captured) by the instance that wrote StockReserved, right after that transition.
 */
describe('inline payment steps in a running orders instance (real Kafka + MongoDB)', () => {
  const h = new OrdersHarness({ PAYMENT_POLL_MS: '60000' });

  beforeAll(() => h.start(1), 120_000);
  afterAll(() => h.stop());

  it('StockReserved → sale → CONFIRMED (with CommitStock) without a poll', async () => {
    const c = h.checkout();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    const reservedAt = Date.now();
    await h.reserved(c);
    await h.waitSeen(c.order_id, 'CommitStock', 1, 20_000);
    expect(Date.now() - reservedAt).toBeLessThan(20_000);
    const order = await h.waitState(c.order_id, 'CONFIRMED');
    expect(order.history.map((t) => `${t.event}:${t.by?.sub ?? ''}`)).toEqual([
      'StockReserved:inventory',
      'PaymentCaptured:orders:payment-worker',
    ]);
    expect((await h.paymentOps(c.order_id)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['sale:captured']);
  });
});
