import { join } from 'node:path';
import type { Filter } from 'mongodb';
import { PausingChild, waitFor } from '@mw/testing';
import { StockRepository } from '../stock/stock.repository';
import { InventoryHarness, oid } from '../test/harness';
import { GroupCommitMode } from './one-commit';
import { ReservationDoc } from './reservation';
import { ReservationsRepository } from './reservations.repository';

/**
 * A confirmed order's sale (CommitStock with `reply: 'failure_only'`, ADR 0015 §3) across a SIGKILL.
 * Orders confirmed the order when the payment was captured and waits for no answer, so the sale
 * must land on its own: a process running the service's own code is killed after the batch moved
 * the orders to `committed` and before any stock document was sold — committed with `pending:
 * 'commit'` (stages), or inside the open transaction (transaction, ADR 0015 §7: nothing visible).
 * The commands were never acknowledged: delivered again to the real service, every unit is sold
 * exactly once — and no StockCommitted (nobody waits for it) nor StockCommitFailed (that would
 * refund a sold order) is ever announced. The sweeper's stale-work pass is pushed out of the way, so
 * the redelivery alone must finish the sale.
 */
describe.each(['transaction', 'stages'] as const)("a confirmed order's sale killed between its status change and the stock's sale (%s)", (mode: GroupCommitMode) => {
  const h = new InventoryHarness({ INVENTORY_STALE_AFTER_MS: '3600000', INVENTORY_GROUP_COMMIT: mode });
  const product = oid(0xe1, 1);
  const sold = Array.from({ length: 12 }, (_, i) => oid(0xe2, i + 1));
  let child: PausingChild | undefined;

  beforeAll(() => h.mongo.connect());
  afterAll(async () => {
    await child?.kill();
    await h.stop();
  });

  const counters = async () => {
    const { marks: _, ...c } = await h.counters(product);
    return c;
  };
  const orders = () => h.db.collection<ReservationDoc>('reservations');

  it('sells every unit once after the redelivery, answering nothing', async () => {
    const stock = new StockRepository(h.db);
    await stock.ensureIndexes();
    await new ReservationsRepository(h.db).ensureIndexes();
    await stock.restock(product, 'MSK', 50, 'delivery');
    await h.start(1);
    await h.send(sold.map((order_id) => ({ type: 'ReserveStock' as const, payload: { order_id, zone: 'MSK', lines: [{ product_id: product, qty: 2 }], hold_seconds: 600 } })));
    await waitFor(async () => sold.every((id) => h.eventsFor(id, 'StockReserved').length === 1) || undefined, 60_000, 'every hold');
    expect(await counters()).toEqual({ available: 26, reserved: 24, committed: 0 });

    child = new PausingChild(join(__dirname, '../test/group-child.ts'), [h.config.MONGO_URL, h.config.MONGO_DB, h.config.INVENTORY_EVENTS_TOPIC, 'after-status', JSON.stringify({ orders: sold, reply: 'failure_only' }), mode]);
    await child.pausedAt('after-status');
    await child.kill();
    const left: Filter<ReservationDoc> = mode === 'stages' ? { status: 'committed', pending: 'commit' } : { status: 'reserved', pending: { $exists: false } };
    expect(await orders().countDocuments({ _id: { $in: sold }, ...left })).toBe(sold.length);
    expect(await orders().countDocuments({ _id: { $in: sold }, '_outbox.type': { $in: ['StockCommitted', 'StockCommitFailed'] } })).toBe(0);
    expect(await counters()).toEqual({ available: 26, reserved: 24, committed: 0 }); // nothing sold yet
    expect(await h.movementsOf(sold)).toEqual({ reserve: 12 }); // no sale's ledger entry either

    await h.send(sold.map((order_id) => ({ type: 'CommitStock' as const, payload: { order_id, reply: 'failure_only' as const } })));
    const finished: Filter<ReservationDoc> = { _id: { $in: sold }, status: 'committed', pending: { $exists: false } };
    await waitFor(async () => (await orders().countDocuments(finished)) === sold.length || undefined, 60_000, 'the sales finished');
    expect(await counters()).toEqual({ available: 26, reserved: 0, committed: 24 });
    expect(await h.movementsOf(sold)).toEqual({ reserve: 12, commit: 12 });
    // a second redelivery moves nothing
    await h.send(sold.map((order_id) => ({ type: 'CommitStock' as const, payload: { order_id, reply: 'failure_only' as const } })));
    await new Promise((r) => setTimeout(r, 2000));
    expect(await counters()).toEqual({ available: 26, reserved: 0, committed: 24 });
    for (const id of sold) {
      expect(h.eventsFor(id, 'StockCommitted')).toHaveLength(0);
      expect(h.eventsFor(id, 'StockCommitFailed')).toHaveLength(0);
    }
    // the ledger has one sale per order (flushed by the stock documents' outbox)
    const sales = () => h.db.collection('ledger').countDocuments({ kind: 'commit', order_id: { $in: sold } });
    await waitFor(async () => (await sales()) >= sold.length || undefined, 30_000, 'the ledger flushed');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await sales()).toBe(sold.length);
  }, 180_000);
});
