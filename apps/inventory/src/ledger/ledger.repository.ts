import { ClientSession, Collection, Db, ReadPreference } from 'mongodb';
import { dropIndexIfPresent, duplicateKeysOnly } from '@mw/persistence';
import { STOCK } from '../stock/stock.repository';
import { StockDoc } from '../stock/stock';
import type { LedgerCopier } from '../stock/stock-pass';
import { LEDGER_KINDS, LedgerEntry, LedgerKind } from './ledger';

export const LEDGER = 'ledger';

/**
 * The append-only ledger collection, and moving pending entries out of stock documents. The service
 * moves them in its stock pass (`StockPass`, with the levels it publishes); `flushOnce` is the same
 * move alone, for tools and tests that need the ledger caught up without publishing levels.
 */
export class LedgerRepository implements LedgerCopier {
  readonly coll: Collection<LedgerEntry>;
  private readonly stock: Collection<StockDoc>;

  constructor(db: Db) {
    this.coll = db.collection<LedgerEntry>(LEDGER);
    this.stock = db.collection<StockDoc>(STOCK);
  }

  async ensureIndexes(): Promise<void> {
    // History walks it backwards (newest first, _id breaks ties) with no in-memory sort.
    await this.coll.createIndex({ product_id: 1, zone: 1, at: 1, _id: 1 }, { name: 'stock_history' });
    await dropIndexIfPresent(this.coll, 'by_stock'); // its prefix: redundant since stock_history
    await this.coll.createIndex({ order_id: 1 }, { name: 'by_order', sparse: true });
  }

  /**
   * One ledger-only pass: copy pending `_ledger` entries to the ledger (`copy`), then pull them from
   * their document. Safe on several instances at once.
   */
  async flushOnce(limit = 200): Promise<number> {
    // Majority-committed entries only (as the outbox relay reads): a primary cut off from its members
    // still takes writes it will roll back; a local read of one would copy its entry into the ledger,
    // through the new primary once the driver finds it, while the movement itself rolls back and is
    // redone under a new entry id — a ledger counting it twice (issue 32, the partitions profile).
    const docs = await this.stock
      .find({ '_ledger.at': { $lte: new Date() } }, { projection: { _ledger: 1 }, readPreference: ReadPreference.primary, readConcern: { level: 'majority' } })
      .limit(limit)
      .toArray();
    const entries = docs.flatMap((d) => d._ledger ?? []);
    if (entries.length === 0) return 0;
    // Two round trips per pass whatever the number of documents: one insert, one pull.
    await this.copy(entries);
    await this.stock.updateMany({ _id: { $in: docs.map((d) => d._id) } }, { $pull: { _ledger: { _id: { $in: entries.map((e) => e._id) } } } });
    return entries.length;
  }

  /**
   * Inserts entries keyed by their id, majority-acknowledged: a copy repeated after a crash is a
   * duplicate-key no-op. Any other error (a write concern error included) is raised, so the caller
   * never pulls entries whose copy is not durable.
   */
  async copy(entries: readonly LedgerEntry[]): Promise<void> {
    try {
      await this.coll.insertMany([...entries], { ordered: false });
    } catch (e) {
      // Never pull entries whose copy a majority has not acknowledged (a write concern error).
      if (!duplicateKeysOnly(e)) throw e;
    }
  }

  /** Net sums per movement kind for one (product, zone), from the ledger collection. */
  async sums(productId: string, zone: string, session?: ClientSession): Promise<Map<LedgerKind, number>> {
    const rows = await this.coll
      .aggregate<{ _id: LedgerKind; qty: number }>([{ $match: { product_id: productId, zone } }, { $group: { _id: '$kind', qty: { $sum: '$qty' } } }], {
        readPreference: ReadPreference.primary,
        ...(session ? { session } : {}),
      })
      .toArray();
    const sums = new Map<LedgerKind, number>(LEDGER_KINDS.map((k) => [k, 0]));
    for (const r of rows) sums.set(r._id, r.qty);
    return sums;
  }

  /** Which of these entry ids are already in the ledger collection. */
  async existing(ids: readonly string[], session?: ClientSession): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const docs = await this.coll.find({ _id: { $in: [...ids] } }, { projection: { _id: 1 }, readPreference: ReadPreference.primary, ...(session ? { session } : {}) }).toArray();
    return new Set(docs.map((d) => d._id));
  }

  history(productId: string, zone: string, limit: number): Promise<LedgerEntry[]> {
    return this.coll.find({ product_id: productId, zone }).sort({ at: -1, _id: -1 }).limit(limit).toArray();
  }
}
