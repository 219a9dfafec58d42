import { randomUUID } from 'node:crypto';
import { Collection, Db, MongoServerError, ReadPreference, UpdateFilter } from 'mongodb';
import { dropIndexIfPresent } from '@mw/persistence';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush } from '@mw/messaging';
import { LedgerEntry, LedgerKind } from '../ledger/ledger';
import { Line } from '../reservations/reservation';
import { StockReturnView } from '../reservations/returns';
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
   * Seed 000/004's conditional decrement: enough available, no hold of this order yet and the order
   * not settled on this document, in one atomic update — race-free, idempotent, and at most once in
   * the order's life. On a miss, a primary read tells why.
   */
  async hold(zone: string, line: Line, orderId: string, expiresAt: Date): Promise<HoldOutcome> {
    const _id = stockKey(line.product_id, zone);
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = new Date();
      const res = await this.coll.updateOne(
        {
          _id,
          available: { $gte: line.qty },
          'reservations.order_id': { $ne: orderId },
          'settled.order_id': { $ne: orderId },
        },
        this.change(
          now,
          { $inc: { available: -line.qty, reserved: line.qty, version: 1 } },
          [entry(line.product_id, zone, 'reserve', line.qty, now, orderId)],
          { reservations: { order_id: orderId, qty: line.qty, expires_at: expiresAt } },
        ),
      );
      if (res.matchedCount === 1) return { held: true };
      const doc = await this.coll.findOne(
        { _id },
        {
          ...primary,
          projection: { available: 1, reservations: 1, settled: { $elemMatch: { order_id: orderId } } },
        },
      );
      if (!doc) return { held: false, available: 0, unknown: true };
      if (doc.reservations.some((h) => h.order_id === orderId)) return { held: true }; // a redelivery: already held
      const settled = settledOf(doc, orderId);
      if (settled) return { held: false, settled };
      if (doc.available < line.qty) return { held: false, available: doc.available, unknown: false };
      // Stock came back between the update and the read: try again (bounded).
    }
    return { held: false, available: 0, unknown: false };
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
    const _id = stockKey(line.product_id, zone);
    const change = this.change(
      now,
      { $inc: { available: line.qty, reserved: -line.qty, version: 1 } },
      [entry(line.product_id, zone, kind, line.qty, now, orderId)],
      {
        settled: this.mark(orderId, as, now),
      },
    );
    const res = await this.coll.updateOne(
      { _id, reservations: { $elemMatch: { order_id: orderId, qty: line.qty } } },
      { ...change, $pull: { reservations: { order_id: orderId } } },
    );
    if (res.modifiedCount === 1) return true;
    await this.remember(_id, orderId, as, now);
    return false;
  }

  /**
   * Makes an order's hold a sale (reserved → committed) once: guarded by the memory of settled
   * orders, so a hold taken again by a stale processor is never sold a second time. No hold: only
   * the memory is written.
   */
  async commitHold(zone: string, line: Line, orderId: string): Promise<boolean> {
    const now = new Date();
    const _id = stockKey(line.product_id, zone);
    const change = this.change(
      now,
      { $inc: { reserved: -line.qty, committed: line.qty, version: 1 } },
      [entry(line.product_id, zone, 'commit', line.qty, now, orderId)],
      {
        settled: this.mark(orderId, 'committed', now),
      },
      false,
    );
    const res = await this.coll.updateOne(
      {
        _id,
        reservations: { $elemMatch: { order_id: orderId, qty: line.qty } },
        'settled.order_id': { $ne: orderId },
      },
      { ...change, $pull: { reservations: { order_id: orderId } } },
    );
    if (res.modifiedCount === 1) return true;
    await this.remember(_id, orderId, 'committed', now);
    return false;
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
    await this.coll.updateOne({ _id, 'settled.order_id': { $ne: orderId } }, {
      $push: { settled: this.mark(orderId, as, at) },
    } as UpdateFilter<StockDoc>);
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

  /** Stores a StockLevelChanged for a level that has not moved since it was read. */
  async publishLevel(doc: Pick<StockDoc, '_id' | 'version'>, message: OutgoingMessage): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: doc._id, version: doc.version, level_dirty: true }, {
      $unset: { level_dirty: '' },
      ...outboxPush([message]),
    } as UpdateFilter<StockDoc>);
    return res.modifiedCount === 1;
  }

  dirtyLevels(limit: number): Promise<StockDoc[]> {
    return this.coll
      .find(
        { level_dirty: true },
        { ...primary, projection: { product_id: 1, zone: 1, available: 1, version: 1 } },
      )
      .limit(limit)
      .toArray();
  }
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
