import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { LedgerRepository } from '../ledger/ledger.repository';
import { LedgerService } from '../ledger/ledger.service';
import { HoldOutcome, StockRepository } from '../stock/stock.repository';
import { stockKey } from '../stock/stock';
import { oid } from '../test/harness';
import { reservationsService } from '../test/services';
import { Line, newReservation } from './reservation';
import { ReservationsRepository } from './reservations.repository';

/**
 * Runs a hook once, right after the next bulkWrite of holds or of a settle: a process killed there
 * (the hook throws) or stopped there (the hook waits) — between the bulkWrite and the reply.
 */
class AfterBulk extends StockRepository {
  next: (() => Promise<void>) | undefined;

  private async after(): Promise<void> {
    const hook = this.next;
    this.next = undefined;
    await hook?.();
  }

  override async holdAll(
    zone: string,
    lines: readonly Line[],
    orderId: string,
    expiresAt: Date,
  ): Promise<HoldOutcome[]> {
    const outcomes = await super.holdAll(zone, lines, orderId, expiresAt);
    await this.after();
    return outcomes;
  }

  override async settleAll(
    zone: string,
    lines: readonly Line[],
    orderId: string,
    how: 'commit' | 'release' | 'expire',
  ) {
    await super.settleAll(zone, lines, orderId, how);
    await this.after();
  }

  /** Stops the next command after its bulk: `reached` settles there, `resume()` lets it go on. */
  pauseNext(): { reached: Promise<void>; resume: () => void } {
    let reached!: () => void;
    let resume!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (resume = r));
    this.next = () => {
      reached();
      return gate;
    };
    return { reached: atGate, resume };
  }

  /** Kills the next command after its bulk. */
  dieNext(message: string): this {
    this.next = () => Promise.reject(new Error(message));
    return this;
  }
}

/**
 * The one-bulkWrite write path (ADR 0040 "Write path") against the real replica set: every line keeps
 * its own guard inside the bulk, so a bulk where some documents lose their guard holds exactly the
 * others and undoes exactly those; a duplicate command in the same flow moves nothing twice; a
 * command redelivered after the process died between a bulkWrite and the reply finishes once.
 */
describe('inventory write path: one bulkWrite per command', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl);
  const db = client.db(uniqueName('inventory_write_path'));
  const stock = new StockRepository(db);
  const reservations = new ReservationsRepository(db);
  const ledger = new LedgerRepository(db);
  const check = new LedgerService(db, ledger, reservations);
  const serviceOn = (s: StockRepository) => reservationsService(reservations, s);
  const service = serviceOn(stock);
  const reserve = (order: string, lines: Line[], s = service) =>
    s.reserve({ order_id: order, zone: 'MSK', lines, hold_seconds: 600 });

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

  const level = async (p: string) => {
    const d = (await stock.coll.findOne({ _id: stockKey(p, 'MSK') }))!;
    return {
      available: d.available,
      reserved: d.reserved,
      committed: d.committed,
      holds: d.reservations.length,
    };
  };
  /** The order's movements on a product's document, oldest first (the ledger entries are still in the document: no flusher runs here). */
  const movements = async (p: string, order: string) =>
    ((await stock.coll.findOne({ _id: stockKey(p, 'MSK') }))?._ledger ?? [])
      .filter((e) => e.order_id === order)
      .map((e) => `${e.kind} ${e.qty}`);
  const settledOn = async (p: string, order: string) =>
    ((await stock.coll.findOne({ _id: stockKey(p, 'MSK') }))?.settled ?? [])
      .filter((m) => m.order_id === order)
      .map((m) => m.as);
  const answers = async (order: string) =>
    ((await reservations.coll.findOne({ _id: order }))?._outbox ?? []).map(
      (e) => JSON.parse(e.envelope) as { type: string; payload: Record<string, unknown> },
    );
  const ledgerOk = async (products: string[]) => {
    for (const p of products) expect(await check.check({ product_id: p })).toMatchObject({ ok: true });
  };

  it('a multi-line bulk where some documents lose their guard: the others are held, then exactly those are undone', async () => {
    const [a, short, c, unknown] = [oid(0xa1, 1), oid(0xa1, 2), oid(0xa1, 3), oid(0xa1, 4)];
    await stock.restock(a, 'MSK', 5, 'delivery');
    await stock.restock(short, 'MSK', 1, 'delivery');
    await stock.restock(c, 'MSK', 5, 'delivery');
    const order = oid(0xa2, 1);
    await reserve(order, [
      { product_id: a, qty: 2 },
      { product_id: short, qty: 3 },
      { product_id: c, qty: 4 },
      { product_id: unknown, qty: 1 },
    ]);

    expect((await reservations.get(order))?.status).toBe('rejected');
    expect((await reservations.get(order))?.pending).toBeUndefined();
    const [rejected, ...more] = await answers(order);
    expect(more).toEqual([]);
    expect(rejected).toMatchObject({
      type: 'StockRejected',
      payload: {
        code: 'INVENTORY.UNKNOWN_PRODUCT',
        shortages: [
          { product_id: short, requested: 3, available: 1 },
          { product_id: unknown, requested: 1, available: 0 },
        ],
      },
    });
    // the two lines that won their guard were held once and returned once; the loser was never touched
    expect(await movements(a, order)).toEqual(['reserve 2', 'release 2']);
    expect(await movements(c, order)).toEqual(['reserve 4', 'release 4']);
    expect(await movements(short, order)).toEqual([]);
    expect(await level(a)).toEqual({ available: 5, reserved: 0, committed: 0, holds: 0 });
    expect(await level(c)).toEqual({ available: 5, reserved: 0, committed: 0, holds: 0 });
    expect(await level(short)).toEqual({ available: 1, reserved: 0, committed: 0, holds: 0 });
    // every document remembers the order, so a stale processor can hold none of its lines again
    for (const p of [a, short, c]) expect(await settledOn(p, order)).toEqual(['released']);
    await ledgerOk([a, short, c]);
  });

  it("a bulk where one line is already this order's (an earlier attempt) and one is short undoes both held lines, each once", async () => {
    const [a, b, short] = [oid(0xa1, 5), oid(0xa1, 6), oid(0xa1, 7)];
    for (const p of [a, b]) await stock.restock(p, 'MSK', 5, 'delivery');
    await stock.restock(short, 'MSK', 2, 'delivery');
    const order = oid(0xa2, 2);
    const lines = [
      { product_id: a, qty: 1 },
      { product_id: b, qty: 1 },
      { product_id: short, qty: 2 },
    ];
    const doc = (
      await reservations.claim(
        newReservation({ order_id: order, zone: 'MSK', lines }, new Date(Date.now() + 600_000), new Date()),
      )
    ).doc;
    // an earlier attempt held `a`, then its processor stopped; meanwhile another order took `short`
    expect(await stock.hold('MSK', lines[0]!, order, doc.expires_at)).toEqual({ held: true });
    await reserve(oid(0xa2, 3), [{ product_id: short, qty: 1 }]);
    const outcomes = await stock.holdAll('MSK', lines, order, doc.expires_at);
    expect(outcomes).toEqual([{ held: true }, { held: true }, { held: false, available: 1, unknown: false }]);
    await stock.settleAll('MSK', lines, order, 'release'); // the undo, as the rejection runs it
    expect(await movements(a, order)).toEqual(['reserve 1', 'release 1']);
    expect(await movements(b, order)).toEqual(['reserve 1', 'release 1']);
    expect(await movements(short, order)).toEqual([]);
    expect(await level(a)).toEqual({ available: 5, reserved: 0, committed: 0, holds: 0 });
    expect(await level(b)).toEqual({ available: 5, reserved: 0, committed: 0, holds: 0 });
    expect(await level(short)).toEqual({ available: 1, reserved: 1, committed: 0, holds: 1 });
    // a repeated undo (a redelivery) finds no hold and the memory written: nothing more
    await stock.settleAll('MSK', lines, order, 'release');
    expect(await movements(a, order)).toEqual(['reserve 1', 'release 1']);
    for (const p of [a, b, short]) expect(await settledOn(p, order)).toEqual(['released']);
    await ledgerOk([a, b, short]);
  });

  it('a duplicate command in the same flow (ReserveStock, then CommitStock, each handled again while the first copy sits between its bulkWrite and its reply) moves each line once', async () => {
    const products = [oid(0xa1, 8), oid(0xa1, 9), oid(0xa1, 10)];
    for (const p of products) await stock.restock(p, 'MSK', 10, 'delivery'); // enough for a second hold: only the guards stop one
    const order = oid(0xa2, 4);
    const lines = products.map((product_id) => ({ product_id, qty: 3 }));
    const pausing = new AfterBulk(db);
    const first = serviceOn(pausing);

    let gate = pausing.pauseNext();
    const firstReserve = reserve(order, lines, first);
    await gate.reached; // the first copy's holds are written, its answer is not
    await reserve(order, lines); // the duplicate finds the order reserving, its holds miss: they are the order's already
    expect((await reservations.get(order))?.status).toBe('reserved');
    gate.resume();
    await firstReserve; // loses the finalize to the duplicate, finds the order live: gives nothing back
    expect((await reservations.get(order))?.status).toBe('reserved');
    for (const p of products)
      expect(await level(p)).toEqual({ available: 7, reserved: 3, committed: 0, holds: 1 });

    gate = pausing.pauseNext();
    const firstCommit = first.commit(order);
    await gate.reached; // the first copy's sale is written, `pending` not cleared yet
    await service.commit(order); // the duplicate finishes the pending work: every write misses
    gate.resume();
    await firstCommit;
    expect((await reservations.get(order))?.status).toBe('committed');
    expect((await reservations.get(order))?.pending).toBeUndefined();
    for (const p of products) {
      expect(await level(p)).toEqual({ available: 7, reserved: 0, committed: 3, holds: 0 });
      expect(await movements(p, order)).toEqual(['reserve 3', 'commit 3']);
      expect(await settledOn(p, order)).toEqual(['committed']);
    }
    expect((await answers(order)).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted']);
    await ledgerOk(products);
  });

  it("ReserveStock redelivered after the process died between the holds' bulkWrite and the reply: reserved once, with its holds", async () => {
    const products = [oid(0xa1, 11), oid(0xa1, 12), oid(0xa1, 13)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    const order = oid(0xa2, 5);
    const lines = products.map((product_id) => ({ product_id, qty: 2 }));
    await expect(
      reserve(order, lines, serviceOn(new AfterBulk(db).dieNext('killed after the holds'))),
    ).rejects.toThrow('killed after the holds');
    expect((await reservations.get(order))?.status).toBe('reserving');
    for (const p of products)
      expect(await level(p)).toEqual({ available: 3, reserved: 2, committed: 0, holds: 1 });
    await reserve(order, lines); // the redelivery, on a fresh process
    const doc = (await reservations.get(order))!;
    expect(doc.status).toBe('reserved');
    for (const p of products) {
      expect(await level(p)).toEqual({ available: 3, reserved: 2, committed: 0, holds: 1 });
      expect(await movements(p, order)).toEqual(['reserve 2']);
    }
    const answered = await answers(order);
    expect(answered.map((e) => e.type)).toEqual(['StockReserved']);
    expect(answered[0]!.payload['expires_at']).toBe(doc.expires_at.toISOString());
    await ledgerOk(products);
  });

  it("CommitStock redelivered after the process died between the settle's bulkWrite and clearing the work: sold once, answered once", async () => {
    const products = [oid(0xa1, 14), oid(0xa1, 15)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    const order = oid(0xa2, 6);
    await reserve(
      order,
      products.map((product_id) => ({ product_id, qty: 1 })),
    );
    await expect(
      serviceOn(new AfterBulk(db).dieNext('killed after the settle')).commit(order),
    ).rejects.toThrow('killed after the settle');
    expect(await reservations.get(order)).toMatchObject({ status: 'committed', pending: 'commit' });
    await service.commit(order); // the redelivery finishes the pending work and moves nothing twice
    expect((await reservations.get(order))?.pending).toBeUndefined();
    for (const p of products) {
      expect(await level(p)).toEqual({ available: 4, reserved: 0, committed: 1, holds: 0 });
      expect(await movements(p, order)).toEqual(['reserve 1', 'commit 1']);
    }
    expect((await answers(order)).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted']);
    await ledgerOk(products);
  });
});
