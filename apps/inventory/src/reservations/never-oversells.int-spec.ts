import { Collection, Db, Filter } from 'mongodb';
import { seededRandom, waitFor } from '@mw/testing';
import { ifMatch, InventoryHarness, oid, restockKey } from '../test/harness';
import { StockDoc } from '../stock/stock';
import { ReservationDoc } from './reservation';

type Counter = 'available' | 'reserved' | 'committed';

/**
 * Reads the stock documents of its own test's products in a loop while the storm runs and keeps the
 * lowest value of each counter. It fails the test (`expectHealthy`) when any read errored, when it
 * sampled fewer than `min` times, or when it never saw a hold on those products — so a dead or idle
 * sampler cannot pass vacuously, nor on holds another test left behind.
 */
class CounterSampler {
  samples = 0;
  sawHolds = false;
  readonly errors: string[] = [];
  readonly lowest: Record<Counter, number> = { available: Infinity, reserved: Infinity, committed: Infinity };
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly coll: Collection<StockDoc>,
    private readonly mine: Filter<StockDoc>,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          for (const d of await this.coll.find(this.mine, { projection: { available: 1, reserved: 1, committed: 1 } }).toArray()) {
            for (const k of ['available', 'reserved', 'committed'] as const) this.lowest[k] = Math.min(this.lowest[k], d[k]);
            if (d.reserved > 0) this.sawHolds = true;
          }
          this.samples++;
        } catch (e) {
          this.errors.push((e as Error).message);
        }
        await new Promise((r) => setTimeout(r, 25)); // pacing only; the count is checked, not assumed
      }
    })();
  }

  async expectHealthy(min: number): Promise<void> {
    this.running = false;
    await this.loop;
    expect(this.errors).toEqual([]);
    expect(this.samples).toBeGreaterThanOrEqual(min);
    expect(this.sawHolds).toBe(true);
    expect(this.lowest).toEqual({ available: expect.any(Number), reserved: expect.any(Number), committed: expect.any(Number) });
    for (const k of ['available', 'reserved', 'committed'] as const) expect(this.lowest[k]).toBeGreaterThanOrEqual(0);
  }
}

/** Seeded PRNG: a failing run replays with INVENTORY_TEST_SEED. */
const prng = seededRandom;

/** Merges per-order command lists at random, keeping each order's own sequence: duplicates land far apart. */
function interleave<T>(queues: T[][], rnd: () => number): T[] {
  const left = queues.filter((q) => q.length > 0).map((q) => [...q]);
  const out: T[] = [];
  while (left.length > 0) {
    const i = Math.floor(rnd() * left.length);
    out.push(left[i]!.shift()!);
    if (left[i]!.length === 0) left.splice(i, 1);
  }
  return out;
}

/** Units per `product:zone` on reservations in a status, read from the reservations collection. */
async function unitsByStatus(db: Db, status: ReservationDoc['status']): Promise<Map<string, number>> {
  const rows = await db
    .collection<ReservationDoc>('reservations')
    .aggregate<{ _id: { p: string; z: string }; units: number }>([{ $match: { status } }, { $unwind: '$lines' }, { $group: { _id: { p: '$lines.product_id', z: '$zone' }, units: { $sum: '$lines.qty' } } }])
    .toArray();
  return new Map(rows.map((r) => [`${r._id.p}:${r._id.z}`, r.units]));
}

/** The conservation laws, from the database alone, for every stock document. */
async function expectConserved(db: Db): Promise<StockDoc[]> {
  const docs = await db.collection<StockDoc>('stock').find({}).toArray();
  const committed = await unitsByStatus(db, 'committed');
  const reserved = await unitsByStatus(db, 'reserved');
  const reservedOrders = await db.collection<ReservationDoc>('reservations').find({ status: 'reserved' }, { projection: { _id: 1, zone: 1, lines: 1 } }).toArray();
  for (const d of docs) {
    const key = `${d.product_id}:${d.zone}`;
    const holders = reservedOrders.filter((o) => o.zone === d.zone && o.lines.some((l) => l.product_id === d.product_id)).map((o) => o._id).sort();
    expect({
      key,
      conserved: d.available + d.reserved + d.committed === d.received + d.adjusted,
      nonNegative: d.available >= 0 && d.reserved >= 0 && d.committed >= 0,
      committed: d.committed,
      reserved: d.reserved,
      holds: d.reservations.map((h) => h.order_id).sort(),
    }).toEqual({ key, conserved: true, nonNegative: true, committed: committed.get(key) ?? 0, reserved: reserved.get(key) ?? 0, holds: holders });
  }
  return docs;
}

/**
 * The proof that inventory never oversells: two real instances in one consumer group on real Kafka
 * and MongoDB, scarce stock on a few products contended by multi-line orders, with duplicated and
 * reordered commands, checked from the database itself.
 */
describe('never oversells (two instances, one consumer group)', () => {
  // Background loops at production-like periods: the MongoDB server is shared by both instances.
  const h = new InventoryHarness({ INVENTORY_PUMP_INTERVAL_MS: '500', INVENTORY_SWEEP_INTERVAL_MS: '1000', OUTBOX_POLL_MS: '200' });
  const stockColl = () => h.db.collection<StockDoc>('stock');

  beforeAll(async () => {
    await h.start(2);
  }, 180_000);

  afterAll(async () => {
    await h.stop();
  });

  it('sells no unit twice and none that is not there: multi-line orders on scarce stock, duplicates and reordering', async () => {
    const seed = Number(process.env['INVENTORY_TEST_SEED'] ?? 20261122);
    const rnd = prng(seed);
    const [a, b, c] = [oid(0xa1, 1), oid(0xa1, 2), oid(0xa1, 3)];
    const supply: [string, string, number][] = [[a, 'MSK', 30], [b, 'MSK', 20], [c, 'MSK', 20], [a, 'SPB', 10]];
    for (const [p, zone, qty] of supply) expect((await h.http('POST', `/stock/${p}/${zone}/restock`, { as: 'stan', headers: restockKey(), body: { qty, reason: 'initial delivery' } })).status).toBe(201);
    expect((await h.http('PUT', `/stock/${c}/MSK`, { as: 'stan', headers: ifMatch(1), body: { available: 16, reason: 'stock-take: 4 damaged' } })).status).toBe(200); // received − adjustments = 16

    const sampler = new CounterSampler(stockColl(), { product_id: { $in: [a, b, c] } });
    sampler.start();
    const n = Number(process.env['INVENTORY_TEST_ORDERS'] ?? 240);
    const orders = Array.from({ length: n }, (_, i) => {
      const spb = rnd() < 0.2;
      const products = spb ? [a] : [a, b, c].filter(() => rnd() < 0.6);
      const picked = products.length > 0 ? products : [[a, b, c][Math.floor(rnd() * 3)]!];
      return { id: oid(0xb1, i), kind: i % 10, zone: spb ? 'SPB' : 'MSK', lines: picked.map((p) => ({ product_id: p, qty: 1 + Math.floor(rnd() * 2) })) };
    });
    type Order = (typeof orders)[number];
    const reserve = (o: Order) => ({ type: 'ReserveStock' as const, payload: { order_id: o.id, zone: o.zone, lines: o.lines, hold_seconds: 600 } });
    const commit = (o: Order) => ({ type: 'CommitStock' as const, payload: { order_id: o.id } });
    const release = (o: Order) => ({ type: 'ReleaseStock' as const, payload: { order_id: o.id } });
    // Each order's own sequence (one key, one partition, in this order):
    type Command = ReturnType<typeof reserve> | ReturnType<typeof commit> | ReturnType<typeof release>;
    const script = (o: Order): Command[] => {
      switch (o.kind) {
        case 4: return [reserve(o), commit(o), reserve(o), commit(o)]; // redelivered after the sale
        case 5: return [reserve(o), release(o), reserve(o)]; // redelivered after the release
        case 6: return [commit(o), reserve(o)]; // commit overtook the reservation
        case 7: return [release(o), reserve(o)]; // release overtook the reservation
        case 8: return [reserve(o), reserve(o)]; // stays reserved (some released in phase two)
        case 9: return [reserve(o)]; // committed in phase two
        default: return [reserve(o), commit(o)];
      }
    };
    const mine = (half: number) => orders.filter((_, i) => i % 2 === half);
    const started = Date.now();
    // Two concurrent producers, each owning half of the orders; within each, orders interleave at random.
    await Promise.all([0, 1].map((half) => h.send(interleave(mine(half).map(script), rnd))));

    const reserveAnswers = (o: Order) => h.eventsFor(o.id).filter((e) => e.type === 'StockReserved' || e.type === 'StockRejected');
    await waitFor(async () => orders.every((o) => reserveAnswers(o).length > 0), 240_000, 'an answer to every ReserveStock');
    const reservedIds = new Set(h.events.filter((e) => e.type === 'StockReserved').map((e) => e.payload['order_id'] as string));
    const wasReserved = (o: Order) => reservedIds.has(o.id);
    // Phase two, after the answers: commit the waiting ones, release some, and deliver stale duplicates again.
    const phaseTwo: Command[] = [
      ...orders.filter((o) => o.kind === 9 && wasReserved(o)).map(commit),
      ...orders.filter((o, i) => o.kind === 8 && wasReserved(o) && i % 20 === 8).map(release),
      ...orders.filter((o) => o.kind === 0 || o.kind === 6).map(reserve),
      ...orders.filter((o) => o.kind === 4).map(commit),
      ...orders.filter((o) => o.kind === 5).map(commit),
    ];
    await h.send(interleave(phaseTwo.map((c) => [c]), rnd));
    const sold = orders.filter((o) => wasReserved(o) && [0, 1, 2, 3, 4, 9].includes(o.kind));
    const givenBack = orders.filter((o, i) => wasReserved(o) && (o.kind === 5 || (o.kind === 8 && i % 20 === 8)));
    await waitFor(async () => sold.every((o) => h.eventsFor(o.id, 'StockCommitted').length > 0) && givenBack.every((o) => h.eventsFor(o.id, 'StockReleased').length > 0), 120_000, 'commits and releases answered');
    await waitFor(async () => (await h.db.collection('reservations').countDocuments({ $or: [{ pending: { $exists: true } }, { status: 'reserving' }] })) === 0, 60_000, 'no work pending');
    // every answer in an outbox seen on the topic (a `pull` relay removes what it sent; a `stream` relay leaves it in place)
    const unpublished = async () => {
      const seen = new Set(h.events.map((e) => e.id));
      const docs = await h.db.collection<{ _outbox?: { id: string }[] }>('reservations').find({ '_outbox.0': { $exists: true } }, { projection: { '_outbox.id': 1 } }).toArray();
      return docs.flatMap((d) => d._outbox ?? []).filter((e) => !seen.has(e.id)).length;
    };
    await waitFor(async () => (await unpublished()) === 0, 60_000, 'outbox published');
    await new Promise((r) => setTimeout(r, 1000)); // a second answer would arrive here
    console.log(`never-oversells (seed ${seed}): ${orders.length} orders, ${reservedIds.size} reserved, ${sold.length} sold, in ${Date.now() - started} ms, ${sampler.samples} samples`);
    await sampler.expectHealthy(40);

    // Every order answered once; each sale and each give-back answered once; nothing else closed.
    for (const o of orders) expect({ o: o.id, answers: reserveAnswers(o).length }).toEqual({ o: o.id, answers: 1 });
    // Every order sent a CommitStock got exactly one answer to it (StockCommitted or StockCommitFailed, never silence).
    const commitAnswers = (o: Order) => h.eventsFor(o.id).filter((e) => e.type === 'StockCommitted' || e.type === 'StockCommitFailed').length;
    const commanded = orders.filter((o) => [0, 1, 2, 3, 4, 5, 6].includes(o.kind) || (o.kind === 9 && wasReserved(o)));
    expect(commanded.length).toBeGreaterThan(n / 2);
    expect(commanded.filter((o) => commitAnswers(o) !== 1).map((o) => ({ o: o.id, kind: o.kind, answers: commitAnswers(o) }))).toEqual([]);
    expect(orders.filter((o) => !commanded.includes(o) && commitAnswers(o) !== 0).map((o) => o.id)).toEqual([]);
    for (const o of orders) expect({ o: o.id, closing: h.eventsFor(o.id, 'StockCommitted').length + (wasReserved(o) ? h.eventsFor(o.id, 'StockReleased').length : 0) }).toEqual({ o: o.id, closing: sold.includes(o) || givenBack.includes(o) ? 1 : 0 });
    // Reordered commands: the overtaken ReserveStock is rejected, nothing is held for it.
    for (const o of orders.filter((x) => x.kind === 6 || x.kind === 7)) expect(reserveAnswers(o)[0]?.payload['code']).toBe('INVENTORY.RESERVATION_RELEASED');
    // Contention was real: stock ran out and orders were turned away for it.
    expect(h.events.filter((e) => e.type === 'StockRejected' && e.payload['code'] === 'INVENTORY.INSUFFICIENT_STOCK').length).toBeGreaterThan(n / 4);

    // From the database: conservation, committed = units of committed reservations, holds = reserved orders.
    const docs = await expectConserved(h.db);
    expect(docs).toHaveLength(supply.length);
    const committedOrders = (await h.db.collection<ReservationDoc>('reservations').find({ status: 'committed' }, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort();
    expect(committedOrders).toEqual(sold.map((o) => o.id).sort());
    const check = await h.http('GET', '/ledger/check', { as: 'service' });
    expect(check.body).toMatchObject({ ok: true, checked: supply.length, failures: [] });
  }, 420_000);

  it('returns expired holds to stock while orders keep arriving, and commits only live reservations', async () => {
    const p = oid(0xa1, 9);
    expect((await h.http('POST', `/stock/${p}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 30, reason: 'delivery' } })).status).toBe(201);
    const sampler = new CounterSampler(stockColl(), { product_id: p });
    sampler.start();
    const orders = Array.from({ length: 120 }, (_, i) => ({ id: oid(0xc1, i), qty: 1 + (i % 3) }));
    const waves = [orders.slice(0, 40), orders.slice(40, 80), orders.slice(80)];
    const reserve = (o: { id: string; qty: number }) => ({
      type: 'ReserveStock' as const,
      payload: { order_id: o.id, zone: 'MSK', lines: [{ product_id: p, qty: o.qty }], hold_seconds: 1 },
    });
    for (const wave of waves) {
      await h.send(wave.map(reserve));
      // Commit every fourth order of the wave straight away (some win, some are already expired).
      await h.send(wave.filter((_, i) => i % 4 === 0).map((o) => ({ type: 'CommitStock' as const, payload: { order_id: o.id } })));
      await new Promise((r) => setTimeout(r, 1500));
    }
    await waitFor(async () => new Set(h.events.filter((e) => ['StockReserved', 'StockRejected'].includes(e.type) && orders.some((o) => o.id === e.payload['order_id'])).map((e) => e.payload['order_id'])).size === orders.length, 200_000, 'every order answered');
    const reservedIds = new Set(h.events.filter((e) => e.type === 'StockReserved').map((e) => e.payload['order_id'] as string));
    // Every reserved order ends committed or expired; nothing stays held.
    await waitFor(async () => {
      const d = await h.db.collection<StockDoc>('stock').findOne({ product_id: p, zone: 'MSK' });
      return d?.reserved === 0 && d.reservations.length === 0;
    }, 60_000, 'all holds expired or committed');
    await waitFor(async () => orders.filter((o) => reservedIds.has(o.id)).every((o) => h.eventsFor(o.id, 'StockCommitted').length + h.eventsFor(o.id, 'StockReleased').length === 1), 30_000, 'each reservation closed once');
    await new Promise((r) => setTimeout(r, 1000)); // a second closing answer would arrive here
    const committedOrders = orders.filter((o) => h.eventsFor(o.id, 'StockCommitted').length > 0);
    for (const o of orders.filter((x) => reservedIds.has(x.id))) {
      const closing = [...h.eventsFor(o.id, 'StockCommitted'), ...h.eventsFor(o.id, 'StockReleased')];
      expect(closing).toHaveLength(1);
      if (closing[0]!.type === 'StockReleased') expect(closing[0]!.payload['reason']).toBe('expired');
    }
    // Every CommitStock got exactly one answer: a sale, or — too late — an error event with a code, never silence.
    const commitTargets = waves.flatMap((wave) => wave.filter((_, i) => i % 4 === 0));
    expect(commitTargets).toHaveLength(30);
    await waitFor(async () => commitTargets.every((o) => h.eventsFor(o.id, 'StockCommitted').length + h.eventsFor(o.id, 'StockCommitFailed').length > 0) || undefined, 30_000, 'every CommitStock answered');
    await new Promise((r) => setTimeout(r, 1000)); // a second answer would arrive here
    const failedCommits = commitTargets.flatMap((o) => h.eventsFor(o.id, 'StockCommitFailed'));
    expect(commitTargets.map((o) => h.eventsFor(o.id, 'StockCommitted').length + h.eventsFor(o.id, 'StockCommitFailed').length)).toEqual(commitTargets.map(() => 1));
    expect(committedOrders.length + failedCommits.length).toBe(commitTargets.length);
    expect(committedOrders.every((o) => commitTargets.includes(o))).toBe(true);
    expect(failedCommits.length).toBeGreaterThan(0); // some commits did come too late
    for (const e of failedCommits) expect(['INVENTORY.RESERVATION_EXPIRED', 'INVENTORY.RESERVATION_NOT_FOUND']).toContain(e.payload['code']);
    const expiredCount = orders.filter((o) => h.eventsFor(o.id, 'StockReleased').length > 0).length;
    expect(expiredCount).toBeGreaterThan(0);
    expect(reservedIds.size).toBeGreaterThan(30 / 3); // expiry returned stock and later waves reserved it again
    const committedUnits = committedOrders.reduce((n, o) => n + o.qty, 0);
    const doc = await h.db.collection<StockDoc>('stock').findOne({ product_id: p, zone: 'MSK' });
    expect(doc).toMatchObject({ committed: committedUnits, reserved: 0, available: 30 - committedUnits });
    await sampler.expectHealthy(40);
    await expectConserved(h.db);
    const check = await h.http('GET', `/ledger/check?product_id=${p}&zone=MSK`, { as: 'otto' });
    expect(check.body).toMatchObject({ ok: true, failures: [] });
  }, 330_000);
});
