import { waitFor } from '@mw/testing';
import { InventoryHarness, oid, restockKey } from '../test/harness';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The hold sweeper sleeps while nothing expires (ADR 0012 "Idle"): its wait grows to 16 sweep
 * intervals, and a hold this process gives wakes it at its expiry — sleeping costs no promptness.
 * One real instance, a 500 ms interval (an 8 s idle bound), a hold of 1 s.
 */
describe('hold sweeper: asleep while idle, woken by the hold it just gave (real Kafka + MongoDB)', () => {
  const h = new InventoryHarness({ INVENTORY_SWEEP_INTERVAL_MS: '500' });
  const p = oid(0xd7, 1);

  beforeAll(async () => {
    await h.start(1);
    expect((await h.http('POST', `/stock/${p}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 5, reason: 'delivery' } })).status).toBe(201);
  }, 120_000);
  afterAll(() => h.stop());

  it('a 1 s hold taken after 9 s of idleness expires about when it ends, not when the idle wait (up to 8 s) does', async () => {
    await settle(9_000); // nothing reserved: the sweeps found nothing and the wait grew to its bound
    const order = oid(0xd7, 0x10);
    const sent = Date.now();
    await h.send([{ type: 'ReserveStock', payload: { order_id: order, zone: 'MSK', lines: [{ product_id: p, qty: 2 }], hold_seconds: 1 } }]);
    await waitFor(async () => h.eventsFor(order, 'StockReserved')[0], 30_000, 'StockReserved');
    const released = await waitFor(async () => h.eventsFor(order, 'StockReleased')[0], 30_000, 'StockReleased');
    const took = Date.now() - sent;
    expect(released.payload['reason']).toBe('expired');
    // 1 s hold + the pass + the relay; a sweeper that ignored the new hold would wait out the rest of its 8 s
    expect(took).toBeLessThan(4_000);
    const stock = await h.http('GET', `/stock/${p}`, { as: 'stan' });
    expect(JSON.stringify(stock.body)).toContain('"available":5');
  }, 60_000);
});
