import { randomUUID } from 'node:crypto';
import { AnyBulkWriteOperation, ClientSession, Collection, Db, Filter, MongoServerError, ReadPreference, UpdateFilter } from 'mongodb';
import { dropIndexIfPresent } from '@mw/persistence';
import { LedgerEntry, LedgerKind } from '../ledger/ledger';
import { Line } from '../reservations/reservation';
import { StockReturnView } from '../reservations/returns';
import { StockActivity } from './stock-pump';
import { SettledAs, StockDoc, settledOf, stockKey } from './stock';
import {
  decideStockTake,
  RESTOCK_KEYS_KEPT,
  type RestockReplay,
  restockReplay,
  type StockActor,
} from './stock-writes';

/** What a restock did: added the units, or found its key already used (the same request, or another). */
export type RestockOutcome =
  | { readonly kind: 'restocked'; readonly doc: StockDoc }
  | (Exclude<RestockReplay, { kind: 'new' }> & { readonly product_id: string; readonly zone: string });

export const STOCK = 'stock';
const primary = { readPreference: ReadPreference.primary };

export type HoldOutcome =
  | { readonly held: true }
  /** The order's line was already settled here: the order is past reserving, nothing may be held for it. */
  | { readonly held: false; readonly settled: SettledAs }
  | { readonly held: false; readonly available: number; readonly unknown: boolean };

/** One conditional single-document update, for `updateOne` or a bulkWrite. */
interface UpdateOp {
  readonly filter: Filter<StockDoc>;
  readonly update: UpdateFilter<StockDoc>;
}

/** How many settled orders each stock document remembers (see `Settled`); the default of INVENTORY_SETTLED_KEEP. */
export const DEFAULT_SETTLED_KEEP = 500;

/**
 * I/O on (product, zone) stock documents. Every write is one conditional single-document update
 * that also appends its ledger entry (and, where it has one, its outbox message), so a change and
 * its record are atomic without transactions. Decision reads go to the primary (seed 001 §5).
 */
export class StockRepository {
  readonly coll: Collection<StockDoc>;

  constructor(
    db: Db,
    private readonly settledKeep = DEFAULT_SETTLED_KEEP,
    /** Told after every write that may dirty a level or leave ledger entries (wakes the background passes). */
    readonly activity = new StockActivity(),
  ) {
    this.coll = db.collection<StockDoc>(STOCK);
  }

  async ensureIndexes(): Promise<void> {
    // Low-stock lists sort by (available, _id): both in the index, so no in-memory sort.
    await this.coll.createIndex({ zone: 1, available: 1, _id: 1 }, { name: 'zone_available' });
    await dropIndexIfPresent(this.coll, 'low_stock'); // its prefix: redundant since zone_available
    await this.coll.createIndex({ product_id: 1 }, { name: 'by_product' });
    await this.coll.createIndex({ 'reservations.expires_at': 1 }, { name: 'hold_expiry' });
    await this.coll.createIndex({ 'reservations.order_id': 1 }, { name: 'hold_order' });
    await this.coll.createIndex({ '_ledger.at': 1 }, { name: 'ledger_pending' });
    await this.coll.createIndex({ level_dirty: 1 }, { name: 'level_dirty', sparse: true });
  }

  /**
   * Seed 000/004's conditional decrement for every line of an order, in one unordered bulkWrite: per
   * document, enough available, no hold of this order yet and the order not settled here — each
   * guard atomic on its own document, so the command is race-free, idempotent, and holds a line at
   * most once in the order's life. No read before: the guards decide. Only when some line missed
   * does one primary read of those lines say, per line, why (unknown, short, settled) or that it is
   * the order's already (an earlier attempt held it). A line whose stock came back between the bulk
   * and the read is tried again (bounded). The outcomes are in the order of `lines`.
   */
  async holdAll(
    zone: string,
    lines: readonly Line[],
    orderId: string,
    expiresAt: Date,
  ): Promise<HoldOutcome[]> {
    if (lines.length === 0) return [];
    const outcomes = new Map<number, HoldOutcome>();
    let open = lines.map((_, i) => i);
    for (let attempt = 0; attempt < 5 && open.length > 0; attempt++) {
      const now = new Date();
      const res = await this.coll.bulkWrite(
        open.map((i) => ({ updateOne: this.holdOp(zone, lines[i]!, orderId, expiresAt, now) })),
        { ordered: false },
      );
      if (res.modifiedCount > 0) this.activity.changed();
      if (res.matchedCount === open.length) {
        for (const i of open) outcomes.set(i, { held: true });
        break;
      }
      const docs = new Map(
        (
          await this.coll
            .find(
              { _id: { $in: open.map((i) => stockKey(lines[i]!.product_id, zone)) } },
              {
                ...primary,
                projection: {
                  available: 1,
                  reservations: { $elemMatch: { order_id: orderId } },
                  settled: { $elemMatch: { order_id: orderId } },
                },
              },
            )
            .toArray()
        ).map((d) => [d._id, d]),
      );
      open = open.filter((i) => {
        const line = lines[i]!;
        const outcome = whyMissed(docs.get(stockKey(line.product_id, zone)), line, orderId);
        if (outcome) outcomes.set(i, outcome);
        return !outcome; // stock came back between the update and the read: try again
      });
    }
    return lines.map((_, i) => outcomes.get(i) ?? { held: false, available: 0, unknown: false });
  }

  /**
   * The holds of many orders in one unordered bulkWrite (group commit, ADR 0012 §4): every line with
   * `holdAll`'s guard, so a line that cannot be held is exactly the line that would miss alone.
   * Answers true when every line was held; otherwise the caller gives each order `holdAll`, which
   * finds the lines this bulk held for it (they are the order's) and says why the others missed.
   */
  async holdMany(
    orders: readonly { zone: string; lines: readonly Line[]; orderId: string; expiresAt: Date }[],
    /** A transaction to write in (the one-commit reserve): the caller tells `activity` once it committed. */
    session?: ClientSession,
  ): Promise<boolean> {
    const now = new Date();
    const ops = [...linesByDocument(orders)].map(([, holds]) =>
      holds.length === 1
        ? { updateOne: this.holdOp(holds[0]!.zone, holds[0]!.line, holds[0]!.orderId, holds[0]!.expiresAt, now) }
        : { updateOne: this.holdAllOp(holds, now) },
    );
    if (ops.length === 0) return true;
    const res = await this.coll.bulkWrite(ops, { ordered: false, ...(session ? { session } : {}) });
    if (res.modifiedCount > 0 && !session) this.activity.changed();
    return res.matchedCount === ops.length;
  }

  /**
   * The holds of several orders on one document as one update (a hot product's batch rewrites its
   * document once, not once per order): all or none, guarded by the sum of their quantities and by
   * `holdOp`'s per-order guards for every one of them. A document that cannot take them all takes
   * none, and each order then goes through `holdAll` alone.
   */
  private holdAllOp(holds: readonly DocumentLine<{ expiresAt: Date }>[], now: Date): UpdateOp {
    const { zone, line } = holds[0]!;
    const ids = holds.map((h) => h.orderId);
    const units = holds.reduce((n, h) => n + h.line.qty, 0);
    return {
      filter: {
        _id: stockKey(line.product_id, zone),
        available: { $gte: units },
        'reservations.order_id': { $nin: ids },
        'settled.order_id': { $nin: ids },
      },
      update: this.change(
        now,
        { $inc: { available: -units, reserved: units, version: holds.length } },
        holds.map((h) => entry(line.product_id, zone, 'reserve', h.line.qty, now, h.orderId)),
        { reservations: { $each: holds.map((h) => ({ order_id: h.orderId, qty: h.line.qty, expires_at: h.expiresAt })) } },
      ),
    };
  }

  /** One line's hold (`holdAll` of one line). */
  async hold(zone: string, line: Line, orderId: string, expiresAt: Date): Promise<HoldOutcome> {
    const [outcome] = await this.holdAll(zone, [line], orderId, expiresAt);
    return outcome!;
  }

  /**
   * Settles an order's lines on their stock documents in one ordered bulkWrite: per line the hold
   * becomes a sale (`commit`) or goes back to available (`release`/`expire`), each write with its
   * own guard (`commitOp`, `releaseOp`), followed in the same bulk by the settled memory alone for a
   * line that had no hold — guarded by the memory itself, so after a write that settled the line it
   * matches nothing. Ordered because the memory must be judged after the line's own write.
   * Idempotent: a repeat finds no hold and the memory present, and changes nothing.
   */
  async settleAll(
    zone: string,
    lines: readonly Line[],
    orderId: string,
    how: 'commit' | 'release' | 'expire',
  ): Promise<void> {
    await this.settleMany([{ zone, lines, orderId }], how);
  }

  /**
   * `settleAll` of many orders in one ordered bulkWrite (group commit): each order's writes in the
   * same order and with the same guards as alone, one order after the other.
   */
  async settleMany(
    orders: readonly { zone: string; lines: readonly Line[]; orderId: string }[],
    how: 'commit' | 'release' | 'expire',
  ): Promise<void> {
    const now = new Date();
    const as: SettledAs = how === 'commit' ? 'committed' : how === 'expire' ? 'expired' : 'released';
    if (how === 'commit' && orders.length > 1 && (await this.commitByDocument(orders, now))) return;
    const ops = orders.flatMap(({ zone, lines, orderId }) =>
      lines.flatMap((line) => [
        {
          updateOne:
            how === 'commit'
              ? this.commitOp(zone, line, orderId, now)
              : this.releaseOp(zone, line, orderId, how, as, now),
        },
        { updateOne: this.rememberOp(stockKey(line.product_id, zone), orderId, as, now) },
      ]),
    );
    if (ops.length === 0) return;
    const res = await this.coll.bulkWrite(ops, { ordered: true });
    if (res.modifiedCount > 0) this.activity.changed();
  }

  /**
   * The sales of many orders, one update per stock document (a hot product's batch rewrites it once):
   * on each document every order's hold of exactly its qty must be there and none of the orders
   * settled here, or the update matches nothing. True when every document took its update; false
   * leaves the rest to the per-line writes, whose guards skip what was sold here.
   */
  private async commitByDocument(
    orders: readonly { zone: string; lines: readonly Line[]; orderId: string }[],
    now: Date,
    session?: ClientSession,
  ): Promise<boolean> {
    const ops = [...linesByDocument(orders)].map(([_id, sales]) => {
      const ids = sales.map((s) => s.orderId);
      const units = sales.reduce((n, s) => n + s.line.qty, 0);
      const { product_id } = sales[0]!.line;
      const zone = sales[0]!.zone;
      return {
        updateOne: {
          filter: {
            _id,
            reservations: { $all: sales.map((s) => ({ $elemMatch: { order_id: s.orderId, qty: s.line.qty } })) },
            'settled.order_id': { $nin: ids },
          } as Filter<StockDoc>,
          update: {
            $inc: { reserved: -units, committed: units, version: sales.length },
            $set: { updated_at: now },
            $push: {
              _ledger: { $each: sales.map((s) => entry(product_id, zone, 'commit', s.line.qty, now, s.orderId)) },
              settled: { $each: ids.map((order_id) => ({ order_id, as: 'committed', at: now })), $slice: -this.settledKeep },
            },
            $pull: { reservations: { order_id: { $in: ids } } },
          } as UpdateFilter<StockDoc>,
        },
      };
    });
    const res = await this.coll.bulkWrite(ops, { ordered: false, ...(session ? { session } : {}) });
    if (res.modifiedCount > 0 && !session) this.activity.changed();
    return res.matchedCount === ops.length;
  }

  /**
   * The sales of many orders inside `session`'s transaction (the one-commit sale, ADR 0015 §7): one
   * update per stock document, each requiring every order's hold of exactly its qty and none of the
   * orders settled there. True when every document took its update; false means some hold is not
   * what the reservation says, and the caller aborts and takes the staged path, which settles line by
   * line. The caller tells `activity` once the transaction committed.
   */
  sellMany(orders: readonly { zone: string; lines: readonly Line[]; orderId: string }[], session: ClientSession): Promise<boolean> {
    return this.commitByDocument(orders, new Date(), session);
  }

  /**
   * Returns an order's hold to `available` (release, undo, expiry, or a stray hold of a sold order)
   * and remembers the order as settled here. No hold: only the memory is written (a processor still
   * working on the order can then take none).
   */
  async releaseHold(
    zone: string,
    line: Line,
    orderId: string,
    kind: 'release' | 'expire',
    as: SettledAs = kind === 'expire' ? 'expired' : 'released',
  ): Promise<boolean> {
    const now = new Date();
    const { filter, update } = this.releaseOp(zone, line, orderId, kind, as, now);
    const res = await this.coll.updateOne(filter, update);
    this.activity.changed();
    if (res.modifiedCount === 1) return true;
    await this.remember(stockKey(line.product_id, zone), orderId, as, now);
    return false;
  }

  /**
   * Makes an order's hold a sale (reserved → committed) once: guarded by the memory of settled
   * orders, so a hold taken again by a stale processor is never sold a second time. No hold: only
   * the memory is written.
   */
  async commitHold(zone: string, line: Line, orderId: string): Promise<boolean> {
    const now = new Date();
    const { filter, update } = this.commitOp(zone, line, orderId, now);
    const res = await this.coll.updateOne(filter, update);
    this.activity.changed();
    if (res.modifiedCount === 1) return true;
    await this.remember(stockKey(line.product_id, zone), orderId, 'committed', now);
    return false;
  }

  /** The hold of one line: enough available, no hold of this order, the order not settled here. */
  private holdOp(zone: string, line: Line, orderId: string, expiresAt: Date, now: Date): UpdateOp {
    return {
      filter: {
        _id: stockKey(line.product_id, zone),
        available: { $gte: line.qty },
        'reservations.order_id': { $ne: orderId },
        'settled.order_id': { $ne: orderId },
      },
      update: this.change(
        now,
        { $inc: { available: -line.qty, reserved: line.qty, version: 1 } },
        [entry(line.product_id, zone, 'reserve', line.qty, now, orderId)],
        { reservations: { order_id: orderId, qty: line.qty, expires_at: expiresAt } },
      ),
    };
  }

  /** The order's hold of this qty back to available, with the ledger entry and the settled memory. */
  private releaseOp(
    zone: string,
    line: Line,
    orderId: string,
    kind: 'release' | 'expire',
    as: SettledAs,
    now: Date,
  ): UpdateOp {
    const change = this.change(
      now,
      { $inc: { available: line.qty, reserved: -line.qty, version: 1 } },
      [entry(line.product_id, zone, kind, line.qty, now, orderId)],
      { settled: this.mark(orderId, as, now) },
    );
    return {
      filter: {
        _id: stockKey(line.product_id, zone),
        reservations: { $elemMatch: { order_id: orderId, qty: line.qty } },
      },
      update: { ...change, $pull: { reservations: { order_id: orderId } } } as UpdateFilter<StockDoc>,
    };
  }

  /** The order's hold of this qty sold, unless the order is settled here already (never sold twice). */
  private commitOp(zone: string, line: Line, orderId: string, now: Date): UpdateOp {
    const change = this.change(
      now,
      { $inc: { reserved: -line.qty, committed: line.qty, version: 1 } },
      [entry(line.product_id, zone, 'commit', line.qty, now, orderId)],
      { settled: this.mark(orderId, 'committed', now) },
      false,
    );
    return {
      filter: {
        _id: stockKey(line.product_id, zone),
        reservations: { $elemMatch: { order_id: orderId, qty: line.qty } },
        'settled.order_id': { $ne: orderId },
      },
      update: { ...change, $pull: { reservations: { order_id: orderId } } } as UpdateFilter<StockDoc>,
    };
  }

  /**
   * What this document says about an order's return (primary read): its return fence, whether it
   * carries the order's return mark, and its committed units. Null: no document.
   */
  async returnView(zone: string, productId: string, orderId: string): Promise<StockReturnView | null> {
    const doc = await this.coll.findOne(
      { _id: stockKey(productId, zone) },
      {
        ...primary,
        projection: { committed: 1, return_fence: 1, return_marks: { $elemMatch: { order_id: orderId } } },
      },
    );
    if (!doc) return null;
    return {
      fence: doc.return_fence ?? 0,
      marked: (doc.return_marks ?? []).some((m) => m.order_id === orderId),
      committed: doc.committed,
    };
  }

  /**
   * Puts a returned order's sold units back on sale (committed → available) with a `return` ledger
   * entry, the order's return mark and its settled memory, in one update conditional on the fence
   * the caller read (no other return applied since) and on no mark of this order. False: the fence
   * moved or the mark is there — read again. Sets `level_dirty`, so StockLevelChanged follows.
   */
  async returnCommitted(zone: string, line: Line, orderId: string, fence: number): Promise<boolean> {
    const now = new Date();
    const _id = stockKey(line.product_id, zone);
    const change = this.change(
      now,
      { $inc: { committed: -line.qty, available: line.qty, version: 1, return_fence: 1 } },
      [entry(line.product_id, zone, 'return', line.qty, now, orderId)],
      {
        return_marks: { order_id: orderId, qty: line.qty, at: now },
        settled: this.mark(orderId, 'returned', now),
      },
    );
    const res = await this.coll.updateOne(
      {
        _id,
        committed: { $gte: line.qty },
        return_fence: fence > 0 ? fence : { $exists: false },
        'return_marks.order_id': { $ne: orderId },
      },
      change,
    );
    this.activity.changed();
    return res.modifiedCount === 1;
  }

  /** Drops an order's return mark once the order records the line as returned. */
  async dropReturnMark(zone: string, productId: string, orderId: string): Promise<void> {
    await this.coll.updateOne({ _id: stockKey(productId, zone) }, {
      $pull: { return_marks: { order_id: orderId } },
    } as UpdateFilter<StockDoc>);
  }

  /** The bounded push of one settled order: the newest `settledKeep` are kept. */
  private mark(orderId: string, as: SettledAs, at: Date): Record<string, unknown> {
    return { $each: [{ order_id: orderId, as, at }], $slice: -this.settledKeep };
  }

  /** Remembers an order as settled on a document that holds nothing for it (once). */
  private async remember(_id: string, orderId: string, as: SettledAs, at: Date): Promise<void> {
    const { filter, update } = this.rememberOp(_id, orderId, as, at);
    await this.coll.updateOne(filter, update);
  }

  /** The settled memory alone, guarded by itself: written once, and never after a write that settled the line. */
  private rememberOp(_id: string, orderId: string, as: SettledAs, at: Date): UpdateOp {
    return {
      filter: { _id, 'settled.order_id': { $ne: orderId } },
      update: { $push: { settled: this.mark(orderId, as, at) } } as UpdateFilter<StockDoc>,
    };
  }

  /**
   * Adds received units (creates the document on first restock), in one update that also appends the
   * ledger entry and, with a key, remembers the key with the request and the level it answers (a
   * pipeline update, so the remembered level is the one this very write produced). A key already
   * remembered here makes the update match nothing: the document then says whether it is a replay
   * of the same request or a reuse for another one, and nothing is added.
   */
  async restock(
    productId: string,
    zone: string,
    qty: number,
    reason: string,
    write: { readonly key?: string; readonly by?: StockActor } = {},
  ): Promise<RestockOutcome> {
    const _id = stockKey(productId, zone);
    const { key, by } = write;
    for (let attempt = 0; ; attempt++) {
      const now = new Date();
      const ledger = entry(productId, zone, 'restock', qty, now, undefined, reason, by, key);
      const lit = (v: unknown) => ({ $literal: v });
      const counters = {
        product_id: { $ifNull: ['$product_id', lit(productId.toLowerCase())] },
        zone: { $ifNull: ['$zone', lit(zone)] },
        available: { $add: [{ $ifNull: ['$available', 0] }, lit(qty)] },
        received: { $add: [{ $ifNull: ['$received', 0] }, lit(qty)] },
        reserved: { $ifNull: ['$reserved', 0] },
        committed: { $ifNull: ['$committed', 0] },
        adjusted: { $ifNull: ['$adjusted', 0] },
        reservations: { $ifNull: ['$reservations', lit([])] },
        version: { $add: [{ $ifNull: ['$version', 0] }, 1] },
        created_at: { $ifNull: ['$created_at', lit(now)] },
        updated_at: lit(now),
        level_dirty: lit(true),
        _ledger: { $concatArrays: [{ $ifNull: ['$_ledger', lit([])] }, lit([ledger])] },
      };
      const remember = key
        ? [
            {
              $set: {
                restock_keys: {
                  $slice: [
                    {
                      $concatArrays: [
                        { $ifNull: ['$restock_keys', lit([])] },
                        [
                          {
                            key: lit(key),
                            qty: lit(qty),
                            reason: lit(reason),
                            ...(by ? { by: lit(by) } : {}),
                            at: lit(now),
                            level: {
                              available: '$available',
                              reserved: '$reserved',
                              committed: '$committed',
                              version: '$version',
                            },
                          },
                        ],
                      ],
                    },
                    -RESTOCK_KEYS_KEPT,
                  ],
                },
              },
            },
          ]
        : [];
      try {
        const doc = await this.coll.findOneAndUpdate(
          { _id, ...(key ? { 'restock_keys.key': { $ne: key } } : {}) },
          [{ $set: counters }, ...remember],
          { upsert: true, returnDocument: 'after' },
        );
        if (!doc) throw new Error(`restock of ${_id} returned no document`);
        this.activity.changed();
        return { kind: 'restocked', doc };
      } catch (e) {
        // The document exists and matched nothing (the key is remembered there), or two first
        // restocks raced on the upsert: the document tells which.
        if (!(e instanceof MongoServerError && e.code === 11000)) throw e;
        if (key) {
          const doc = await this.coll.findOne(
            { _id },
            { ...primary, projection: { restock_keys: 1, product_id: 1, zone: 1 } },
          );
          const seen = restockReplay(doc?.restock_keys, key, { qty, reason });
          if (seen.kind !== 'new') return { ...seen, product_id: productId.toLowerCase(), zone };
        }
        if (attempt >= 3) throw e;
      }
    }
  }

  /**
   * Sets `available` to a counted level (stock-take) if the document is still at the version the
   * count was made against (`expected`; 0: not stocked here yet); the difference is an `adjust`
   * movement. Anything that changed the document since — a reservation, a sale, another count —
   * makes it `stale` with the version now, and nothing is written.
   */
  async setAvailable(
    productId: string,
    zone: string,
    target: number,
    reason: string,
    expected: number,
    by?: StockActor,
  ): Promise<StockDoc | { readonly stale: number }> {
    const _id = stockKey(productId, zone);
    const now = new Date();
    const doc = await this.coll.findOne({ _id }, primary);
    const decision = decideStockTake(doc ?? { version: 0, available: 0 }, expected, target);
    if (decision.kind === 'stale') return { stale: decision.current };
    if (!doc) {
      const fresh: StockDoc = {
        _id,
        product_id: productId.toLowerCase(),
        zone,
        available: target,
        reserved: 0,
        committed: 0,
        received: 0,
        adjusted: target,
        reservations: [],
        version: 1,
        level_dirty: true,
        created_at: now,
        updated_at: now,
        _ledger: [entry(productId, zone, 'adjust', target, now, undefined, reason, by)],
      };
      try {
        await this.coll.insertOne(fresh);
        this.activity.changed();
        return fresh;
      } catch (e) {
        if (e instanceof MongoServerError && e.code === 11000) return { stale: await this.versionOf(_id) };
        throw e;
      }
    }
    if (decision.delta === 0) return doc;
    const updated = await this.coll.findOneAndUpdate(
      { _id, version: expected },
      this.change(now, { $inc: { available: decision.delta, adjusted: decision.delta, version: 1 } }, [
        entry(productId, zone, 'adjust', decision.delta, now, undefined, reason, by),
      ]),
      { returnDocument: 'after' },
    );
    if (updated) this.activity.changed();
    return updated ?? { stale: await this.versionOf(_id) };
  }

  private async versionOf(_id: string): Promise<number> {
    return (await this.coll.findOne({ _id }, { ...primary, projection: { version: 1 } }))?.version ?? 0;
  }

  findOne(productId: string, zone: string): Promise<StockDoc | null> {
    return this.coll.findOne({ _id: stockKey(productId, zone) }, primary);
  }

  findMany(productIds: readonly string[], zone: string): Promise<StockDoc[]> {
    return this.coll
      .find(
        { _id: { $in: productIds.map((p) => stockKey(p, zone)) } },
        { ...primary, projection: { _outbox: 0, _ledger: 0, settled: 0, return_marks: 0, restock_keys: 0 } },
      )
      .toArray();
  }

  forProduct(productId: string): Promise<StockDoc[]> {
    return this.coll
      .find(
        { product_id: productId.toLowerCase() },
        { ...primary, projection: { _outbox: 0, _ledger: 0, settled: 0, return_marks: 0, restock_keys: 0 } },
      )
      .toArray();
  }

  /** The available units of these products in one zone: one query by `_id` (`product:zone`, the shard key), from the primary. */
  availableIn(zone: string, productIds: readonly string[]): Promise<Pick<StockDoc, 'product_id' | 'available'>[]> {
    return this.coll
      .find({ _id: { $in: productIds.map((id) => stockKey(id, zone)) } }, { ...primary, projection: { _id: 0, product_id: 1, available: 1 } })
      .toArray();
  }

  lowStock(zone: string, threshold: number, limit: number): Promise<StockDoc[]> {
    return this.coll
      .find(
        { zone, available: { $lte: threshold } },
        {
          projection: {
            _outbox: 0,
            _ledger: 0,
            reservations: 0,
            settled: 0,
            return_marks: 0,
            restock_keys: 0,
          },
        },
      )
      .sort({ available: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** Documents holding holds that expired before `before` (the orphan-hold pass of the sweeper). */
  withExpiredHolds(before: Date, limit: number): Promise<StockDoc[]> {
    return this.coll
      .find(
        { 'reservations.expires_at': { $lt: before } },
        { ...primary, projection: { zone: 1, product_id: 1, reservations: 1 } },
      )
      .limit(limit)
      .toArray();
  }

  /** The update shared by every change: counters, version, ledger entry, dirty level, timestamp. */
  private change(
    now: Date,
    inc: { $inc: Record<string, number> },
    ledger: LedgerEntry[],
    push?: Record<string, unknown>,
    levelChanged = true,
  ): UpdateFilter<StockDoc> {
    return {
      ...inc,
      $set: { updated_at: now, ...(levelChanged ? { level_dirty: true } : {}) },
      $push: { _ledger: { $each: ledger }, ...(push ?? {}) },
    } as UpdateFilter<StockDoc>;
  }

  /**
   * Settles a stock pass (`StockPass`) with one write per document, in one unordered bulkWrite: the
   * ledger entries the pass read (and copied) pulled, and, with `clearLevels`, `level_dirty` cleared
   * if the document is still at the version read. One statement per dirty document; the documents
   * that only had entries (sales) share one `updateMany`. The clear's guard is inside the update (a
   * pipeline), not in its filter, so a document that moved meanwhile is still written once — its
   * entries pulled, its flag kept for the next pass to publish the newer level.
   */
  async settle(
    docs: readonly Pick<StockDoc, '_id' | 'version' | 'level_dirty' | '_ledger'>[],
    { clearLevels }: { readonly clearLevels: boolean },
  ): Promise<void> {
    const ops: AnyBulkWriteOperation<StockDoc>[] = [];
    // documents with entries only (a sale changes no level): one statement for all of them
    const pullOnly = { docs: [] as string[], entries: [] as string[] };
    for (const doc of docs) {
      const ids = (doc._ledger ?? []).map((e) => e._id);
      if (clearLevels && doc.level_dirty === true) {
        const pulled =
          ids.length > 0
            ? { _ledger: { $filter: { input: { $ifNull: ['$_ledger', []] }, cond: { $not: [{ $in: ['$$this._id', ids] }] } } } }
            : {};
        const cleared = { level_dirty: { $cond: [{ $eq: ['$version', doc.version] }, '$$REMOVE', '$level_dirty'] } };
        ops.push({ updateOne: { filter: { _id: doc._id }, update: [{ $set: { ...pulled, ...cleared } }] } });
      } else if (ids.length > 0) {
        pullOnly.docs.push(doc._id);
        pullOnly.entries.push(...ids);
      }
    }
    if (pullOnly.docs.length > 0)
      ops.push({
        updateMany: {
          filter: { _id: { $in: pullOnly.docs } },
          update: { $pull: { _ledger: { _id: { $in: pullOnly.entries } } } } as UpdateFilter<StockDoc>,
        },
      });
    if (ops.length > 0) await this.coll.bulkWrite(ops, { ordered: false });
  }

  /**
   * The documents a stock pass has work on: a level to publish or ledger entries to move. Majority-
   * committed only, as the outbox relay reads: a level or an entry a primary cut off from its
   * members took could roll back after it was published or copied, and the movement, redone under a
   * new entry id, would count twice in the ledger (issue 32, the partitions profile).
   */
  pendingWork(limit: number): Promise<StockDoc[]> {
    return this.coll
      .find(
        { $or: [{ level_dirty: true }, { '_ledger.at': { $lte: new Date() } }] },
        {
          ...primary,
          readConcern: { level: 'majority' },
          projection: { product_id: 1, zone: 1, available: 1, version: 1, level_dirty: 1, _ledger: 1 },
        },
      )
      .limit(limit)
      .toArray();
  }
}

/**
 * Why a hold missed, from the primary read of its document (projected to this order's hold and
 * memory); undefined when nothing explains it (the stock came back meanwhile: try again).
 */
/** One order's line on its stock document, with what the caller carries along (its hold's expiry). */
type DocumentLine<T = object> = { readonly zone: string; readonly line: Line; readonly orderId: string } & T;

/** The lines of many orders grouped by stock document, in first-seen order. */
function linesByDocument<T extends { readonly zone: string; readonly lines: readonly Line[]; readonly orderId: string }>(
  orders: readonly T[],
): Map<string, DocumentLine<Omit<T, 'lines' | 'zone' | 'orderId'>>[]> {
  const byDoc = new Map<string, DocumentLine<Omit<T, 'lines' | 'zone' | 'orderId'>>[]>();
  for (const { lines, ...order } of orders)
    for (const line of lines) {
      const key = stockKey(line.product_id, order.zone);
      const list = byDoc.get(key) ?? [];
      list.push({ ...order, line } as DocumentLine<Omit<T, 'lines' | 'zone' | 'orderId'>>);
      byDoc.set(key, list);
    }
  return byDoc;
}

function whyMissed(
  doc: (Pick<StockDoc, 'available'> & Partial<Pick<StockDoc, 'reservations' | 'settled'>>) | undefined,
  line: Line,
  orderId: string,
): HoldOutcome | undefined {
  if (!doc) return { held: false, available: 0, unknown: true };
  if ((doc.reservations ?? []).some((h) => h.order_id === orderId)) return { held: true }; // an earlier attempt held it
  const settled = settledOf(doc, orderId);
  if (settled) return { held: false, settled };
  if (doc.available < line.qty) return { held: false, available: doc.available, unknown: false };
  return undefined;
}

function entry(
  productId: string,
  zone: string,
  kind: LedgerKind,
  qty: number,
  at: Date,
  orderId?: string,
  reason?: string,
  by?: StockActor,
  idempotencyKey?: string,
): LedgerEntry {
  return {
    _id: randomUUID(),
    product_id: productId.toLowerCase(),
    zone,
    kind,
    qty,
    at,
    ...(orderId ? { order_id: orderId } : {}),
    ...(reason ? { reason } : {}),
    ...(by ? { by: { sub: by.sub, role: by.role } } : {}),
    ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
  };
}
