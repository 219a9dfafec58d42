import { OrdersHarness } from '../test/harness';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The deadline sweeper sleeps while nothing is due (ADR 0012 "Idle"): its wait grows to 16 sweep
 * intervals, and a deadline this process sets wakes it — so sleeping costs no promptness. Real Kafka
 * and MongoDB, one orders instance, a 500 ms interval (an 8 s idle bound) and a 1 s stock deadline.
 */
describe('deadline sweeper: asleep while idle, woken by the deadline a transition sets (real Kafka + MongoDB)', () => {
  const h = new OrdersHarness({
    SAGA_SWEEP_INTERVAL_MS: '500',
    SAGA_STOCK_TIMEOUT_MS: '1000',
    SAGA_PAYMENT_TIMEOUT_MS: '60000',
    SAGA_COMMIT_TIMEOUT_MS: '60000',
    SAGA_CANCEL_TIMEOUT_MS: '60000',
  });

  beforeAll(() => h.start(1), 120_000);
  afterAll(() => h.stop());

  it('a stock deadline set after 9 s of idleness fires about when it passes, not when the idle wait (up to 8 s) ends', async () => {
    await settle(9_000); // no order yet: the sweeps found nothing and the wait grew to its bound
    const c = h.checkout();
    const sent = Date.now();
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    const order = await h.waitState(c.order_id, 'CANCELLED', 30_000);
    expect(order.reason).toBe('STOCK_DEADLINE_EXCEEDED');
    const fired = order.history.find((t) => t.event === 'DeadlinePassed');
    expect(fired).toBeDefined();
    // 1 s deadline + the sweep itself; a sweeper that ignored the new deadline would wait out the rest of its 8 s
    expect(Date.parse(fired!.at) - sent).toBeLessThan(3_500);
  }, 60_000);
});
