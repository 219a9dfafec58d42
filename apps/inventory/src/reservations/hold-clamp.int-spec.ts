import { InventoryHarness, oid, restockKey } from '../test/harness';
import { waitFor } from '@mw/testing';

/**
 * ReserveStock.hold_seconds is the sender's wish, not inventory's promise (ADR 0009): a command
 * over real Kafka asking to hold a product for a day is held for INVENTORY_MAX_HOLD_SECONDS.
 */
describe('inventory clamps the hold a ReserveStock asks for', () => {
  const h = new InventoryHarness({ INVENTORY_MAX_HOLD_SECONDS: '600' });
  const product = oid(0xc1, 1);

  beforeAll(async () => {
    await h.start(1);
    expect((await h.http('POST', `/stock/${product}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 5, reason: 'delivery' } })).status).toBe(201);
  }, 180_000);
  afterAll(() => h.stop());

  it('holds for the configured maximum when hold_seconds is 86400', async () => {
    const order = oid(0xc2, 1);
    const sent = Date.now();
    await h.send([{ type: 'ReserveStock', payload: { order_id: order, zone: 'MSK', lines: [{ product_id: product, qty: 1 }], hold_seconds: 86_400 } }]);
    const reserved = await waitFor(async () => h.eventsFor(order, 'StockReserved')[0], 30_000, 'StockReserved');
    const expiresAt = Date.parse(String(reserved.payload['expires_at']));
    expect(expiresAt - sent).toBeLessThanOrEqual(600_000 + 30_000);
    expect(expiresAt - sent).toBeGreaterThanOrEqual(600_000 - 30_000);
  });
});
