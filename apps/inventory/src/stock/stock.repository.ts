import { randomUUID } from 'node:crypto';
import { Collection, Db, MongoServerError, ReadPreference, UpdateFilter } from 'mongodb';
import { dropIndexIfPresent } from '@mw/persistence';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush } from '@mw/messaging';
import { LedgerEntry, LedgerKind } from '../ledger/ledger';
import { Line } from '../reservations/reservation';
import { StockDoc, stockKey } from './stock';

export const STOCK = 'stock';
const primary = { readPreference: ReadPreference.primary };

export type HoldOutcome = { readonly held: true } | { readonly held: false; readonly available: number; readonly unknown: boolean };

/**
 * I/O on (product, zone) stock documents. Every write is one conditional single-document update
 * that also appends its ledger entry (and, where it has one, its outbox message), so a change and
 * its record are atomic without transactions. Decision reads go to the primary (seed 001 §5).
 */
export class StockRepository {
  readonly coll: Collection<StockDoc>;

  constructor(db: Db) {
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
   * Seed 000/004's conditional decrement: enough available and no hold of this order yet, in one
   * atomic update — race-free and idempotent. On a miss, a primary read tells why.
   */
  async hold(zone: string, line: Line, orderId: string, expiresAt: Date): Promise<HoldOutcome> {
    const _id = stockKey(line.product_id, zone);
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = new Date();
      const res = await this.coll.updateOne(
        { _id, available: { $gte: line.qty }, 'reservations.order_id': { $ne: orderId } },
        this.change(now, { $inc: { available: -line.qty, reserved: line.qty, version: 1 } }, [
          entry(line.product_id, zone, 'reserve', line.qty, now, orderId),
        ], { reservations: { order_id: orderId, qty: line.qty, expires_at: expiresAt } }),
      );
      if (res.matchedCount === 1) return { held: true };
      const doc = await this.coll.findOne({ _id }, { ...primary, projection: { available: 1, reservations: 1 } });
      if (!doc) return { held: false, available: 0, unknown: true };
      if (doc.reservations.some((h) => h.order_id === orderId)) return { held: true }; // a redelivery: already held
      if (doc.available < line.qty) return { held: false, available: doc.available, unknown: false };
      // Stock came back between the update and the read: try again (bounded).
    }
    return { held: false, available: 0, unknown: false };
  }

  /** Returns an order's hold to `available` (release, undo or expiry). No-op if the hold is gone. */
  async releaseHold(zone: string, line: Line, orderId: string, kind: 'release' | 'expire'): Promise<boolean> {
    const now = new Date();
    const res = await this.coll.updateOne(
      { _id: stockKey(line.product_id, zone), reservations: { $elemMatch: { order_id: orderId, qty: line.qty } } },
      {
        ...this.change(now, { $inc: { available: line.qty, reserved: -line.qty, version: 1 } }, [
          entry(line.product_id, zone, kind, line.qty, now, orderId),
        ]),
        $pull: { reservations: { order_id: orderId } },
      },
    );
    return res.modifiedCount === 1;
  }

  /** Makes an order's hold a sale: reserved → committed. No-op if the hold is gone. */
  async commitHold(zone: string, line: Line, orderId: string): Promise<boolean> {
    const now = new Date();
    const res = await this.coll.updateOne(
      { _id: stockKey(line.product_id, zone), reservations: { $elemMatch: { order_id: orderId, qty: line.qty } } },
      {
        ...this.change(now, { $inc: { reserved: -line.qty, committed: line.qty, version: 1 } }, [
          entry(line.product_id, zone, 'commit', line.qty, now, orderId),
        ], undefined, false),
        $pull: { reservations: { order_id: orderId } },
      },
    );
    return res.modifiedCount === 1;
  }

  /** Adds received units (creates the document on first restock). */
  async restock(productId: string, zone: string, qty: number, reason: string): Promise<StockDoc> {
    const _id = stockKey(productId, zone);
    for (let attempt = 0; ; attempt++) {
      const now = new Date();
      try {
        const doc = await this.coll.findOneAndUpdate(
          { _id },
          {
            ...this.change(now, { $inc: { available: qty, received: qty, version: 1 } }, [entry(productId, zone, 'restock', qty, now, undefined, reason)]),
            $setOnInsert: { product_id: productId.toLowerCase(), zone, reserved: 0, committed: 0, adjusted: 0, reservations: [], created_at: now },
          },
          { upsert: true, returnDocument: 'after' },
        );
        if (!doc) throw new Error(`restock of ${_id} returned no document`);
        return doc;
      } catch (e) {
        // Two first restocks raced on the upsert: the loser retries as an update.
        if (e instanceof MongoServerError && e.code === 11000 && attempt < 3) continue;
        throw e;
      }
    }
  }

  /**
   * Sets `available` to a counted level (stock-take); the difference is an `adjust` movement.
   * Optimistic on `version`, so a concurrent reservation is never overwritten.
   */
  async setAvailable(productId: string, zone: string, target: number, reason: string): Promise<StockDoc | 'conflict'> {
    const _id = stockKey(productId, zone);
    for (let attempt = 0; attempt < 20; attempt++) {
      const now = new Date();
      const doc = await this.coll.findOne({ _id }, primary);
      if (!doc) {
        try {
          const fresh: StockDoc = {
            _id, product_id: productId.toLowerCase(), zone, available: target, reserved: 0, committed: 0, received: 0, adjusted: target,
            reservations: [], version: 1, level_dirty: true, created_at: now, updated_at: now,
            _ledger: [entry(productId, zone, 'adjust', target, now, undefined, reason)],
          };
          await this.coll.insertOne(fresh);
          return fresh;
        } catch (e) {
          if (e instanceof MongoServerError && e.code === 11000) continue;
          throw e;
        }
      }
      const delta = target - doc.available;
      if (delta === 0) return doc;
      const updated = await this.coll.findOneAndUpdate(
        { _id, version: doc.version },
        this.change(now, { $inc: { available: delta, adjusted: delta, version: 1 } }, [entry(productId, zone, 'adjust', delta, now, undefined, reason)]),
        { returnDocument: 'after' },
      );
      if (updated) return updated;
    }
    return 'conflict';
  }

  findOne(productId: string, zone: string): Promise<StockDoc | null> {
    return this.coll.findOne({ _id: stockKey(productId, zone) }, primary);
  }

  findMany(productIds: readonly string[], zone: string): Promise<StockDoc[]> {
    return this.coll.find({ _id: { $in: productIds.map((p) => stockKey(p, zone)) } }, primary).toArray();
  }

  forProduct(productId: string): Promise<StockDoc[]> {
    return this.coll.find({ product_id: productId.toLowerCase() }, { ...primary, projection: { _outbox: 0, _ledger: 0 } }).toArray();
  }

  lowStock(zone: string, threshold: number, limit: number): Promise<StockDoc[]> {
    return this.coll
      .find({ zone, available: { $lte: threshold } }, { projection: { _outbox: 0, _ledger: 0, reservations: 0 } })
      .sort({ available: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** Documents holding holds that expired before `before` (the orphan-hold pass of the sweeper). */
  withExpiredHolds(before: Date, limit: number): Promise<StockDoc[]> {
    return this.coll
      .find({ 'reservations.expires_at': { $lt: before } }, { ...primary, projection: { zone: 1, product_id: 1, reservations: 1 } })
      .limit(limit)
      .toArray();
  }

  /** The update shared by every change: counters, version, ledger entry, dirty level, timestamp. */
  private change(
    now: Date,
    inc: { $inc: Record<string, number> },
    ledger: LedgerEntry[],
    hold?: Record<string, unknown>,
    levelChanged = true,
  ): UpdateFilter<StockDoc> {
    return {
      ...inc,
      $set: { updated_at: now, ...(levelChanged ? { level_dirty: true } : {}) },
      $push: { _ledger: { $each: ledger }, ...(hold ?? {}) },
    } as UpdateFilter<StockDoc>;
  }

  /** Stores a StockLevelChanged for a level that has not moved since it was read. */
  async publishLevel(doc: Pick<StockDoc, '_id' | 'version'>, message: OutgoingMessage): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: doc._id, version: doc.version, level_dirty: true },
      { $unset: { level_dirty: '' }, ...outboxPush([message]) } as UpdateFilter<StockDoc>,
    );
    return res.modifiedCount === 1;
  }

  dirtyLevels(limit: number): Promise<StockDoc[]> {
    return this.coll.find({ level_dirty: true }, { ...primary, projection: { product_id: 1, zone: 1, available: 1, version: 1 } }).limit(limit).toArray();
  }
}

function entry(productId: string, zone: string, kind: LedgerKind, qty: number, at: Date, orderId?: string, reason?: string): LedgerEntry {
  return {
    _id: randomUUID(),
    product_id: productId.toLowerCase(),
    zone,
    kind,
    qty,
    at,
    ...(orderId ? { order_id: orderId } : {}),
    ...(reason ? { reason } : {}),
  };
}
