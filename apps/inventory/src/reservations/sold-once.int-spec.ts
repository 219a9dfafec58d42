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

/** The sweeper's read of stale `reserving` orders returns a snapshot taken earlier (it read, then the order moved on). */
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

/**
 * Pauses one processor right before it holds a given product, after the lines before it are held
 * (a consumer that lost its partition mid-command; for the one-bulk hold: a bulk whose first writes
 * are applied while the rest wait on the server).
 */
class PausedStock extends StockRepository {
  pauseAt: { productId: string; reached: () => void; resume: Promise<void> } | undefined;
  override async holdAll(zone: string, lines: readonly Line[], orderId: string, expiresAt: Date) {
    const pause = this.pauseAt;
    const at = pause ? lines.findIndex((l) => l.product_id === pause.productId) : -1;
    if (!pause || at < 0) return super.holdAll(zone, lines, orderId, expiresAt);
    this.pauseAt = undefined;
    const before = at > 0 ? await super.holdAll(zone, lines.slice(0, at), orderId, expiresAt) : [];
    pause.reached();
    await pause.resume;
    return [...before, ...(await super.holdAll(zone, lines.slice(at), orderId, expiresAt))];
  }
}

/**
 * A hold for (order, product, zone) is taken at most once in the order's life, and a unit is sold
 * at most once: the paths of issue #9 item 4, each reproduced against the real MongoDB server with
 * the race made deterministic (a stale snapshot, a paused processor).
 */
describe('a unit is sold once', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl);
  const db = client.db(uniqueName('inventory_sold_once'));
  const logger = pino({ level: 'silent' });
  const stock = new StockRepository(db);
  const paused = new PausedStock(db);
  const reservations = new StaleReads(db);
  const ledger = new LedgerRepository(db);
  const check = new LedgerService(db, ledger, reservations);
  const limits = { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 };
  const serviceOn = (s: StockRepository) => new ReservationsService(reservations, s, new InventoryEvents('test.events'), new OutboxNudge(), limits, logger);
  const service = serviceOn(stock);
  const swept = new RecordingService(reservations, stock, new InventoryEvents('test.events'), new OutboxNudge(), limits, logger);
  const sweeper = new Sweeper(reservations, stock, swept, 0, logger);
  const hours = (n: number) => new Date(Date.now() + n * 3_600_000);

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
  const outboxOf = async (id: string) =>
    ((await reservations.coll.findOne({ _id: id }))?._outbox ?? []).map((e) => JSON.parse(e.envelope) as { type: string; payload: Record<string, unknown> });

  /** What the code before the fix did when a stale processor re-took a hold: a plain hold with its ledger entry. */
  async function strayHold(p: string, orderId: string, qty: number, expiresAt: Date): Promise<void> {
    const now = new Date();
    await stock.coll.updateOne(
      { _id: stockKey(p, 'MSK') },
      {
        $inc: { available: -qty, reserved: qty, version: 1 },
        $push: { reservations: { order_id: orderId, qty, expires_at: expiresAt }, _ledger: { _id: randomUUID(), product_id: p, zone: 'MSK', kind: 'reserve', qty, order_id: orderId, at: now } },
      },
    );
  }

  async function reservedAndCommitted(orderId: string, lines: Line[]): Promise<ReservationDoc> {
    const doc = newReservation({ order_id: orderId, zone: 'MSK', lines }, hours(1), new Date());
    await reservations.claim(doc);
    await service.complete(doc, true);
    expect((await reservations.get(orderId))?.status).toBe('reserved');
    await service.commit(orderId);
    expect(await reservations.get(orderId)).toMatchObject({ status: 'committed' });
    expect((await reservations.get(orderId))?.pending).toBeUndefined();
    return doc; // the `reserving` snapshot a slow reader may still hold
  }

  it('the sweeper resuming a stale `reserving` snapshot after the commit settled takes no hold and sells nothing more', async () => {
    const p = oid(0x51, 1);
    const order = oid(0x52, 1);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const snapshot = await reservedAndCommitted(order, [{ product_id: p, qty: 2 }]);
    expect(await level(p)).toMatchObject({ available: 8, reserved: 0, committed: 2 });

    reservations.stale.push(snapshot); // the sweeper read the order while it was still reserving
    swept.resumed.splice(0);
    const sweep = await sweeper.sweepOnce();
    // the sweep resumed exactly the injected snapshot (a sweep that never got to it would prove nothing)
    expect({ left: reservations.stale.length, resumed: sweep.resumed, orders: swept.resumed }).toEqual({ left: 0, resumed: 1, orders: [{ _id: order, status: 'reserving' }] });
    const afterResume = (await level(p)).reservations;
    // Past every expiry: the orphan-hold pass runs over whatever the resume left behind.
    await sweeper.sweepOnce(hours(2));
    const { available, reserved, committed } = await level(p);
    expect({ afterResume, available, reserved, committed }).toEqual({ afterResume: [], available: 8, reserved: 0, committed: 2 });
    expect((await outboxOf(order)).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted']);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  });

  it('a redelivered ReserveStock (rebalance) racing a paused first delivery cannot re-take a hold after the commit', async () => {
    const [p1, p2] = [oid(0x51, 2), oid(0x51, 3)] as const;
    const order = oid(0x52, 2);
    await stock.restock(p1, 'MSK', 5, 'delivery');
    await stock.restock(p2, 'MSK', 5, 'delivery');
    const cmd = { order_id: order, zone: 'MSK', lines: [{ product_id: p1, qty: 1 }, { product_id: p2, qty: 1 }], hold_seconds: 600 };
    let reached!: () => void;
    let resume!: () => void;
    const atP2 = new Promise<void>((r) => (reached = r));
    paused.pauseAt = { productId: p2, reached, resume: new Promise<void>((r) => (resume = r)) };
    // The first member holds p1 and stalls before p2; the group rebalances and the new owner gets the record again.
    const first = serviceOn(paused).reserve(cmd);
    await atP2;
    await service.reserve(cmd);
    expect((await reservations.get(order))?.status).toBe('reserved');
    await service.commit(order);
    expect(await level(p2)).toMatchObject({ committed: 1, reserved: 0 });
    resume(); // the stalled member wakes up and carries on where it stopped
    await first;
    const afterResume = (await level(p2)).reservations;
    await sweeper.sweepOnce(hours(2));
    expect({ afterResume, committed: (await level(p2)).committed }).toEqual({ afterResume: [], committed: 1 });
    expect(await level(p1)).toMatchObject({ available: 4, reserved: 0, committed: 1, reservations: [] });
    expect(await level(p2)).toMatchObject({ available: 4, reserved: 0, committed: 1, reservations: [] });
    expect((await outboxOf(order)).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted']);
  });

  it('no hold is taken again for an order once its line is settled: committed, released, expired, or undone after a short line', async () => {
    const p = oid(0x51, 8);
    const short = oid(0x51, 9);
    await stock.restock(p, 'MSK', 20, 'delivery');
    await stock.restock(short, 'MSK', 1, 'delivery');
    const [sold, released, expired, rejected] = [oid(0x53, 1), oid(0x53, 2), oid(0x53, 3), oid(0x53, 4)];
    await reservedAndCommitted(sold, [{ product_id: p, qty: 1 }]);
    await service.reserve({ order_id: released, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 600 });
    await service.release(released);
    await service.reserve({ order_id: expired, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 1 });
    await service.expire(expired, hours(1));
    // Pre-check passes, then the short line is taken: p is held first, then undone (never held on `short`).
    const doc = newReservation({ order_id: rejected, zone: 'MSK', lines: [{ product_id: p, qty: 1 }, { product_id: short, qty: 2 }] }, hours(1), new Date());
    await reservations.claim(doc);
    await service.complete(doc, true);
    expect((await reservations.get(rejected))?.status).toBe('rejected');
    const before = await level(p);
    const outcomes = [];
    for (const id of [sold, released, expired, rejected]) outcomes.push(await stock.hold('MSK', { product_id: p, qty: 1 }, id, hours(1)));
    outcomes.push(await stock.hold('MSK', { product_id: short, qty: 1 }, rejected, hours(1)));
    expect(outcomes).toEqual([
      { held: false, settled: 'committed' },
      { held: false, settled: 'released' },
      { held: false, settled: 'expired' },
      { held: false, settled: 'released' },
      { held: false, settled: 'released' },
    ]);
    expect(await level(p)).toMatchObject({ available: before.available, reserved: 0, committed: 1, reservations: [] });
  });

  it('a stale processor racing the application of a sale neither holds nor sells the line again', async () => {
    const p = oid(0x51, 10);
    const order = oid(0x52, 7);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const snapshot = await reservedAndCommitted(order, [{ product_id: p, qty: 2 }]);
    // A second settle (the sweeper's stale-pending pass) read `pending: commit` before the first cleared it.
    await reservations.coll.updateOne({ _id: order }, { $set: { pending: 'commit' } });
    await service.complete(snapshot); // the stale processor, in the middle of it
    const afterResume = (await level(p)).reservations;
    await service.settle(order);
    await sweeper.sweepOnce(hours(2));
    const { available, reserved, committed } = await level(p);
    expect({ afterResume, available, reserved, committed }).toEqual({ afterResume: [], available: 8, reserved: 0, committed: 2 });
  });

  it('the orphan-hold pass returns a stray hold of a settled committed order instead of selling it again', async () => {
    const p = oid(0x51, 4);
    const order = oid(0x52, 3);
    await stock.restock(p, 'MSK', 10, 'delivery');
    await reservedAndCommitted(order, [{ product_id: p, qty: 3 }]);
    await strayHold(p, order, 3, new Date(Date.now() - 1000)); // left by a pre-fix version, past its expiry
    await sweeper.sweepOnce();
    expect(await level(p)).toMatchObject({ available: 7, reserved: 0, committed: 3, reservations: [] });
  });

  it('a processor that loses the finalize race to a commit returns the stray hold at once (reconcile knows committed orders)', async () => {
    const p = oid(0x51, 5);
    const order = oid(0x52, 4);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const snapshot = await reservedAndCommitted(order, [{ product_id: p, qty: 2 }]);
    await strayHold(p, order, 2, hours(1)); // not expired: only reconcile can return it now
    await service.complete(snapshot); // the stale processor finds "its" hold and tries to finalize
    expect(await level(p)).toMatchObject({ available: 8, reserved: 0, committed: 2, reservations: [] });
  });

  it('a resumed `reserving` order is reserved with a fresh expiry, not one already past', async () => {
    const p = oid(0x51, 6);
    const order = oid(0x52, 5);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const t0 = Date.now() - 60_000;
    // Claimed a minute ago with a 30 s hold; its processor died before holding anything.
    await reservations.claim(newReservation({ order_id: order, zone: 'MSK', lines: [{ product_id: p, qty: 1 }] }, new Date(t0 + 30_000), new Date(t0)));
    const before = Date.now();
    await sweeper.sweepOnce();
    const doc = (await reservations.get(order))!;
    expect(doc.status).toBe('reserved');
    expect(doc.expires_at.getTime()).toBeGreaterThanOrEqual(before + 30_000 - 1000);
    const answer = (await outboxOf(order)).find((e) => e.type === 'StockReserved')!;
    expect(new Date(answer.payload['expires_at'] as string).getTime()).toBe(doc.expires_at.getTime());
    expect((await level(p)).reservations).toEqual([expect.objectContaining({ order_id: order, expires_at: doc.expires_at })]);
  });

  it('/ledger/check notices a double sale the counters and the ledger agree on', async () => {
    const p = oid(0x51, 7);
    const order = oid(0x52, 6);
    await stock.restock(p, 'MSK', 10, 'delivery');
    await reservedAndCommitted(order, [{ product_id: p, qty: 2 }]);
    expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
    // The old double sale: a stray hold for the committed order, then sold (counters and ledger move together).
    await strayHold(p, order, 2, new Date());
    const now = new Date();
    await stock.coll.updateOne(
      { _id: stockKey(p, 'MSK') },
      {
        $inc: { reserved: -2, committed: 2, version: 1 },
        $pull: { reservations: { order_id: order } },
        $push: { _ledger: { _id: randomUUID(), product_id: p, zone: 'MSK', kind: 'commit', qty: 2, order_id: order, at: now } },
      },
    );
    const report = await check.check({ product_id: p });
    expect(report.ok).toBe(false);
    expect(report.failures[0]?.problems.join('; ')).toMatch(/committed = 4 but committed reservations sum to 2/);
  });
});
