import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { LedgerRepository } from '../ledger/ledger.repository';
import { LedgerService } from '../ledger/ledger.service';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { StockRepository } from '../stock/stock.repository';
import { stockKey } from '../stock/stock';
import { Sweeper } from '../sweeper/sweeper';
import { oid } from '../test/harness';
import { Line, newReservation, ReservationDoc } from './reservation';
import { ReservationsRepository } from './reservations.repository';
import { ReservationsService } from './reservations.service';

/** Settled orders each stock document remembers here: small, so the tests can push an order out of the memory. */
const KEEP = 10;

/** The sweeper's read of stale `reserving` orders returns a snapshot taken earlier. */
class StaleReads extends ReservationsRepository {
  readonly stale: ReservationDoc[] = [];
  override async staleReserving(before: Date, limit: number): Promise<ReservationDoc[]> {
    return this.stale.length > 0 ? this.stale.splice(0) : super.staleReserving(before, limit);
  }
}

/** The service as the sweeper drives it: records each order it resumes, with the status of the snapshot it resumed from. */
class RecordingService extends ReservationsService {
  readonly resumed: { _id: string; status: string }[] = [];
  override async complete(doc: ReservationDoc, fresh = false): Promise<void> {
    this.resumed.push({ _id: doc._id, status: doc.status });
    return super.complete(doc, fresh);
  }
}

/** Pauses a processor right before it moves a return's units (it has read the document and the order). */
class PausedReturn extends StockRepository {
  pause: { reached: () => void; resume: Promise<void> } | undefined;
  readonly applied: boolean[] = [];
  override async returnCommitted(zone: string, line: Line, orderId: string, fence: number): Promise<boolean> {
    const pause = this.pause;
    if (pause) {
      this.pause = undefined;
      pause.reached();
      await pause.resume;
    }
    const applied = await super.returnCommitted(zone, line, orderId, fence);
    this.applied.push(applied);
    return applied;
  }
}

/**
 * A return moves a sold order's units back exactly once, on the real MongoDB server, with the races
 * made deterministic (a paused processor, a stale snapshot) and the stock document's bounded
 * `settled` memory pushed past the order (INVENTORY_SETTLED_KEEP): the return's guard is the fence
 * and the mark, not that memory.
 */
describe('a sold unit is returned once', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl);
  const db = client.db(uniqueName('inventory_returned_once'));
  const logger = pino({ level: 'silent' });
  const stock = new StockRepository(db, KEEP);
  const paused = new PausedReturn(db, KEEP);
  const reservations = new StaleReads(db);
  const ledger = new LedgerRepository(db);
  const check = new LedgerService(db, ledger, reservations);
  const limits = { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 };
  const serviceOn = (s: StockRepository) =>
    new ReservationsService(
      reservations,
      s,
      new InventoryEvents('test.events'),
      new OutboxNudge(),
      limits,
      logger,
    );
  const service = serviceOn(stock);
  const swept = new RecordingService(
    reservations,
    stock,
    new InventoryEvents('test.events'),
    new OutboxNudge(),
    limits,
    logger,
  );
  const sweeper = new Sweeper(reservations, stock, swept, 0, logger);
  const hours = (n: number) => new Date(Date.now() + n * 3_600_000);
  let next = 0;

  beforeAll(async () => {
    await client.connect();
    await stock.ensureIndexes();
    await reservations.ensureIndexes();
    await ledger.ensureIndexes();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const level = async (p: string) => (await stock.findOne(p, 'MSK'))!;
  const counters = async (p: string) => {
    const { available, reserved, committed } = await level(p);
    return { available, reserved, committed };
  };
  const outboxOf = async (id: string) =>
    ((await reservations.coll.findOne({ _id: id }))?._outbox ?? []).map(
      (e) => (JSON.parse(e.envelope) as { type: string }).type,
    );

  async function sell(orderId: string, lines: Line[]): Promise<ReservationDoc> {
    const doc = newReservation({ order_id: orderId, zone: 'MSK', lines }, hours(1), new Date());
    await reservations.claim(doc);
    await service.complete(doc, true);
    await service.commit(orderId);
    expect(await reservations.get(orderId)).toMatchObject({ status: 'committed' });
    return doc; // the `reserving` snapshot a slow reader may still hold
  }

  /** Sells `n` units of `p` to other orders, one each: the document's settled memory moves on. */
  async function otherSales(p: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) await sell(oid(0xb9, next++), [{ product_id: p, qty: 1 }]);
  }

  it('a processor that read before another finished the return cannot move the units again, even once the document forgot the order', async () => {
    const p = oid(0xb1, 1);
    const order = oid(0xb2, 1);
    await stock.restock(p, 'MSK', 30, 'delivery');
    await sell(order, [{ product_id: p, qty: 2 }]);

    let reached!: () => void;
    let resume!: () => void;
    const atApply = new Promise<void>((r) => (reached = r));
    paused.pause = { reached, resume: new Promise<void>((r) => (resume = r)) };
    // The first processor changes the status, reads the document and the order, and stalls before moving the units.
    const first = serviceOn(paused).returnStock(order);
    await atApply;
    // Another (the redelivered command on the partition's new owner) does the whole return.
    await service.returnStock(order);
    expect(await reservations.get(order)).toMatchObject({ status: 'returned', returned_lines: [p] });
    expect((await reservations.get(order))?.pending).toBeUndefined();
    expect(await counters(p)).toEqual({ available: 30, reserved: 0, committed: 0 });
    // More settlements than the document remembers: the order is no longer in its `settled` memory.
    await otherSales(p, KEEP + 2);
    expect((await level(p)).settled?.map((m) => m.order_id)).not.toContain(order);

    resume(); // the stalled processor wakes with its old reads
    await first;
    expect(paused.applied).toEqual([false]); // the fence it read had moved
    expect(await counters(p)).toEqual({ available: 30 - (KEEP + 2), reserved: 0, committed: KEEP + 2 });
    expect((await level(p)).return_marks).toEqual([]);
    await ledger.flushOnce();
    expect(await ledger.coll.countDocuments({ order_id: order, kind: 'return' })).toBe(1);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  });

  it('a repeated ReturnStock long after (the memory forgot the order) answers again and moves nothing', async () => {
    const p = oid(0xb1, 2);
    const order = oid(0xb2, 2);
    await stock.restock(p, 'MSK', 30, 'delivery');
    await sell(order, [{ product_id: p, qty: 3 }]);
    await service.returnStock(order);
    await otherSales(p, KEEP + 2);
    expect((await level(p)).settled?.map((m) => m.order_id)).not.toContain(order);
    const before = await counters(p);
    await service.returnStock(order);
    await service.settle(order);
    expect(await counters(p)).toEqual(before);
    expect(await outboxOf(order)).toEqual([
      'StockReserved',
      'StockCommitted',
      'StockReturned',
      'StockReturned',
    ]);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  });

  it('a stale `reserving` snapshot resumed after the return (memory forgotten) sells nothing: its hold goes back at once', async () => {
    const p = oid(0xb1, 3);
    const order = oid(0xb2, 3);
    await stock.restock(p, 'MSK', 30, 'delivery');
    const snapshot = await sell(order, [{ product_id: p, qty: 2 }]);
    await service.returnStock(order);
    await otherSales(p, KEEP + 2);
    const before = await counters(p);

    reservations.stale.push(snapshot); // the sweeper read the order while it was still reserving
    swept.resumed.splice(0);
    const sweep = await sweeper.sweepOnce();
    // the sweep resumed exactly the injected snapshot (a sweep that never got to it would prove nothing)
    expect({ left: reservations.stale.length, resumed: sweep.resumed, orders: swept.resumed }).toEqual({ left: 0, resumed: 1, orders: [{ _id: order, status: 'reserving' }] });
    const afterResume = (await level(p)).reservations;
    await sweeper.sweepOnce(hours(2)); // past every expiry: the orphan-hold pass
    expect({ afterResume, ...(await counters(p)) }).toEqual({ afterResume: [], ...before });
    expect(await reservations.get(order)).toMatchObject({ status: 'returned' });
    await service.commit(order); // and a late CommitStock on top
    expect(await counters(p)).toEqual(before);
    expect(await outboxOf(order)).toEqual(['StockReserved', 'StockCommitted', 'StockReturned']);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  });

  it('a ReturnStock that finds the sale still being applied applies it first, then returns it', async () => {
    const p = oid(0xb1, 4);
    const order = oid(0xb2, 4);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const doc = newReservation(
      { order_id: order, zone: 'MSK', lines: [{ product_id: p, qty: 4 }] },
      hours(1),
      new Date(),
    );
    await reservations.claim(doc);
    await service.complete(doc, true);
    // Crash after "status → committed", before the hold became a sale.
    await reservations.coll.updateOne({ _id: order }, { $set: { status: 'committed', pending: 'commit' } });
    await service.returnStock(order);
    expect(await counters(p)).toEqual({ available: 10, reserved: 0, committed: 0 });
    expect(await reservations.get(order)).toMatchObject({ status: 'returned', returned_lines: [p] });
    await ledger.flushOnce();
    expect(
      (await ledger.coll.find({ order_id: order }).sort({ at: 1 }).toArray()).map((e) => e.kind),
    ).toEqual(['reserve', 'commit', 'return']);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  });

  it('/ledger/check stays balanced in the middle of a return and notices a return applied twice', async () => {
    const [p1, p2] = [oid(0xb1, 5), oid(0xb1, 6)];
    const order = oid(0xb2, 5);
    await stock.restock(p1, 'MSK', 10, 'delivery');
    await stock.restock(p2, 'MSK', 10, 'delivery');
    await sell(order, [
      { product_id: p1, qty: 2 },
      { product_id: p2, qty: 3 },
    ]);
    // Crash after the status change: no document touched yet.
    await reservations.coll.updateOne({ _id: order }, { $set: { status: 'returned', pending: 'return' } });
    expect(await check.check({})).toMatchObject({ ok: true });
    // Crash after the first line moved (its mark on the document), before the order recorded it.
    const view = (await stock.returnView('MSK', p1, order))!;
    expect(await stock.returnCommitted('MSK', { product_id: p1, qty: 2 }, order, view.fence)).toBe(true);
    expect(await stock.returnCommitted('MSK', { product_id: p1, qty: 2 }, order, view.fence)).toBe(false); // its fence is spent
    expect(await check.check({})).toMatchObject({ ok: true });
    await service.settle(order); // the sweeper finishes it
    expect(await counters(p1)).toEqual({ available: 10, reserved: 0, committed: 0 });
    expect(await counters(p2)).toEqual({ available: 10, reserved: 0, committed: 0 });
    expect(await check.check({})).toMatchObject({ ok: true });

    // A second return of the same units, as an unguarded update would do it: counters and ledger agree, the reservations do not.
    await otherSales(p2, 3);
    await stock.coll.updateOne(
      { _id: stockKey(p2, 'MSK') },
      {
        $inc: { committed: -3, available: 3, version: 1 },
        $push: {
          _ledger: {
            _id: randomUUID(),
            product_id: p2,
            zone: 'MSK',
            kind: 'return',
            qty: 3,
            order_id: order,
            at: new Date(),
          },
        },
      },
    );
    const report = await check.check({ product_id: p2 });
    expect(report.ok).toBe(false);
    expect(report.failures[0]?.problems).toEqual(['committed = 0 but committed reservations sum to 3']);
  });
});
