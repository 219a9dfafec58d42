import { join } from 'node:path';
import { PausingChild, waitFor } from '@mw/testing';
import { StockDoc } from '../stock/stock';
import { StockRepository } from '../stock/stock.repository';
import { InventoryHarness, oid } from '../test/harness';
import { GroupCommitMode } from './one-commit';
import { ReservationDoc } from './reservation';
import { ReservationsRepository } from './reservations.repository';

/**
 * Group commit through Kafka and across a SIGKILL (ADR 0012 §4, ADR 0015 §7), in both modes. A
 * batch's work is killed between its bulkWrites — in a child process running the service's own code
 * on the test database — and its commands, never acknowledged, are delivered again to the real
 * service (a partition batch at a time, in the same mode): every order is answered once and every
 * unit is held and sold once. `stages` leaves its resumable intermediate states (`reserving`,
 * `pending: 'commit'`) for the redelivery and the sweeper; `transaction` leaves nothing — the kill
 * lands inside the open transaction, which the server reaps (transactionLifetimeLimitSeconds) before
 * the redelivery can write the same documents. A backlog delivered while the service runs is
 * reserved with a handful of inserts, not one per order.
 */
describe.each(['transaction', 'stages'] as const)('inventory commands a partition batch at a time, killed between two bulkWrites (%s)', (mode: GroupCommitMode) => {
  const h = new InventoryHarness({ INVENTORY_STALE_AFTER_MS: '1500', INVENTORY_GROUP_COMMIT: mode });
  const [p1, p2] = [oid(0xd1, 1), oid(0xd1, 2)];
  const crashed = Array.from({ length: 20 }, (_, i) => oid(0xd2, i + 1));
  const backlog = Array.from({ length: 40 }, (_, i) => oid(0xd3, i + 1));
  let child: PausingChild | undefined;

  beforeAll(() => h.mongo.connect());
  afterAll(async () => {
    await child?.kill();
    await h.stop();
  });

  const counters = async (p: string) => {
    const { marks: _, ...c } = await h.counters(p);
    return c;
  };
  const orders = () => h.db.collection<ReservationDoc>('reservations');
  // every order: 1 of p1; every other one also 2 of p2
  const reserveOf = (order_id: string, i: number) => ({
    order_id,
    zone: 'MSK',
    lines: [{ product_id: p1, qty: 1 }, ...(i % 2 === 0 ? [{ product_id: p2, qty: 2 }] : [])],
    hold_seconds: 600,
  });
  const killAt = async (point: 'after-holds' | 'after-status', json: unknown) => {
    child = new PausingChild(join(__dirname, '../test/group-child.ts'), [h.config.MONGO_URL, h.config.MONGO_DB, h.config.INVENTORY_EVENTS_TOPIC, point, JSON.stringify(json), mode]);
    await child.pausedAt(point);
    await child.kill();
  };
  const answeredOnce = (ids: readonly string[], type: string) =>
    waitFor(async () => ids.every((id) => h.eventsFor(id, type).length >= 1) || undefined, 60_000, `${ids.length} × ${type}`);

  it('reserves and sells every unit once: answers, holds and sales after the restart', async () => {
    const stock = new StockRepository(h.db);
    await stock.ensureIndexes();
    await new ReservationsRepository(h.db).ensureIndexes();
    await stock.restock(p1, 'MSK', 100, 'delivery');
    await stock.restock(p2, 'MSK', 100, 'delivery');

    // 1. A batch killed after its holds, before any order moved to `reserved` (stages) or committed (transaction).
    await killAt('after-holds', crashed.map(reserveOf));
    if (mode === 'stages') {
      expect(await orders().countDocuments({ _id: { $in: crashed }, status: 'reserving' })).toBe(20);
      expect(await orders().countDocuments({ _id: { $in: crashed }, '_outbox.0': { $exists: true } })).toBe(0);
      expect(await counters(p1)).toEqual({ available: 80, reserved: 20, committed: 0 });
      expect(await counters(p2)).toEqual({ available: 80, reserved: 20, committed: 0 });
    } else {
      expect(await orders().countDocuments({ _id: { $in: crashed } })).toBe(0);
      expect(await counters(p1)).toEqual({ available: 100, reserved: 0, committed: 0 });
      expect(await counters(p2)).toEqual({ available: 100, reserved: 0, committed: 0 });
    }
    // the holds' ledger entries share their fate: pending in the documents (stages), or none (transaction)
    expect(await h.movementsOf(crashed)).toEqual(mode === 'stages' ? { reserve: 30 } : {});

    // Its commands were never acknowledged: the restarted service (which makes its topics) gets them again.
    await h.start(1);
    await h.send(crashed.map((order_id, i) => ({ type: 'ReserveStock' as const, payload: reserveOf(order_id, i) })));
    await answeredOnce(crashed, 'StockReserved');
    expect(await counters(p1)).toEqual({ available: 80, reserved: 20, committed: 0 });

    // 2. A backlog arriving at once is reserved in a handful of bulk inserts (4 partitions).
    await h.db.command({ profile: 2 });
    await h.send(backlog.map((order_id, i) => ({ type: 'ReserveStock' as const, payload: reserveOf(order_id, i) })));
    await answeredOnce(backlog, 'StockReserved');
    await h.db.command({ profile: 0 });
    const inserts = await h.db.collection('system.profile').countDocuments({ op: 'insert', ns: `${h.config.MONGO_DB}.reservations` });
    process.stdout.write(`group commit: 40 ReserveStock of a backlog took ${inserts} insert(s) of reservations\n`);
    expect(inserts).toBeGreaterThanOrEqual(1);
    expect(inserts).toBeLessThanOrEqual(12);
    expect(await counters(p1)).toEqual({ available: 40, reserved: 60, committed: 0 });
    expect(await counters(p2)).toEqual({ available: 40, reserved: 60, committed: 0 });

    // 3. The sales of the crashed orders, killed after their status change, before any stock moved.
    await killAt('after-status', crashed);
    if (mode === 'transaction') {
      // nothing of the sale is visible: every order still plainly reserved, nothing sold
      expect(await orders().countDocuments({ _id: { $in: crashed }, status: 'reserved', pending: { $exists: false } })).toBe(20);
      expect(await counters(p1)).toEqual({ available: 40, reserved: 60, committed: 0 });
      expect(await h.movementsOf(crashed)).toEqual({ reserve: 30 }); // the sale's entries died with its transaction
    }
    // (the live service's sweeper may already be finishing them: stale pending work is its job too)
    await h.send(crashed.map((order_id) => ({ type: 'CommitStock' as const, payload: { order_id } })));
    await answeredOnce(crashed, 'StockCommitted');
    await waitFor(async () => (await orders().countDocuments({ pending: { $exists: true } })) === 0 || undefined, 60_000, 'no pending work');
    expect(await counters(p1)).toEqual({ available: 40, reserved: 40, committed: 20 });
    expect(await counters(p2)).toEqual({ available: 40, reserved: 40, committed: 20 });

    // Exactly one answer of each kind per order, whoever stored it.
    await new Promise((r) => setTimeout(r, 1000));
    for (const id of crashed) {
      expect(h.eventsFor(id, 'StockReserved')).toHaveLength(1);
      expect(h.eventsFor(id, 'StockCommitted')).toHaveLength(1);
    }
    for (const id of backlog) expect(h.eventsFor(id, 'StockReserved')).toHaveLength(1);
    // one movement per line and step, whoever wrote it: 20 lines of p1, 10 of p2
    expect(await h.movementsOf(crashed)).toEqual({ reserve: 30, commit: 30 });
    expect(await h.movementsOf(backlog)).toEqual({ reserve: 60 });
    const p1Doc = (await h.db.collection<StockDoc>('stock').findOne({ _id: `${p1}:MSK` }))!;
    expect(new Set(p1Doc.reservations.map((r) => r.order_id))).toEqual(new Set(backlog));
  }, 240_000);
});
