import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { PricedProduct, ProductWrite, StockLevel, stockTimestamp } from './product';

const { Long } = types;
const ts = (t: bigint): types.Long => Long.fromString(t.toString());
/**
 * Partitions one `IN` read asks for: the coordinator reads them side by side, so a few make one
 * request instead of a few; a cart's 100 lines still spread over several coordinators' work.
 */
const IN_READ_MAX = 20;

/** Partitions per unlogged batch of levels: Cassandra warns above 10 (`unlogged_batch_across_partitions_warn_threshold`). */
const LEVELS_PER_BATCH = 10;

function stockWrite(level: StockLevel): { query: string; params: unknown[] } {
  return {
    query: `INSERT INTO stock_levels (product_id, zone, available, version) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
    params: [level.product_id, level.zone, level.available, level.version, ts(stockTimestamp(level.version))],
  };
}

/** The carts' product and stock tables. Every write carries the timestamp its event decides. */
@Injectable()
export class ProductsRepository {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  async apply(write: ProductWrite): Promise<void> {
    switch (write.kind) {
      case 'upsert': {
        const p = write.product;
        await this.db.execute(
          `INSERT INTO products (product_id, name, category_id, price, version) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?`,
          [p.product_id, p.name, p.category_id, Long.fromNumber(p.price), p.version, ts(write.timestamp)],
          { prepare: true },
        );
        return;
      }
      case 'delete':
        await this.db.execute(`DELETE FROM products USING TIMESTAMP ? WHERE product_id = ?`, [ts(write.timestamp), write.product_id], { prepare: true });
        return;
    }
  }

  async applyStock(level: StockLevel): Promise<void> {
    const { query, params } = stockWrite(level);
    await this.db.execute(query, params, { prepare: true });
  }

  /**
   * Levels of several products at once: unlogged batches of at most `LEVELS_PER_BATCH` partitions,
   * one request each. Each write keeps its own timestamp, so a batch that applies in part, or twice,
   * leaves what the writes one by one would.
   */
  async applyStocks(levels: readonly StockLevel[]): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < levels.length; i += LEVELS_PER_BATCH) {
      const [only, ...more] = levels.slice(i, i + LEVELS_PER_BATCH).map(stockWrite);
      if (!only) continue;
      writes.push(more.length === 0 ? this.db.execute(only.query, only.params, { prepare: true }) : this.db.batch([only, ...more], { prepare: true, logged: false }));
    }
    await Promise.all(writes);
  }

  async get(productId: string): Promise<PricedProduct | null> {
    return (await this.getMany([productId])).get(productId) ?? null;
  }

  /**
   * The products of a cart (≤ 100 ids, one partition each): one `IN` read per `IN_READ_MAX` ids,
   * in parallel — a checkout of a few lines reads its prices in one request.
   */
  async getMany(productIds: readonly string[]): Promise<Map<string, PricedProduct>> {
    const ids = [...new Set(productIds)];
    const reads: Promise<types.ResultSet>[] = [];
    for (let i = 0; i < ids.length; i += IN_READ_MAX)
      reads.push(this.db.execute(`SELECT product_id, name, category_id, price, version FROM products WHERE product_id IN ?`, [ids.slice(i, i + IN_READ_MAX)], { prepare: true }));
    const rows = (await Promise.all(reads)).flatMap((rs) => rs.rows);
    const out = new Map<string, PricedProduct>();
    for (const r of rows) {
      const price = r.get('price') as types.Long;
      out.set(r.get('product_id') as string, {
        product_id: r.get('product_id') as string,
        name: r.get('name') as string,
        category_id: r.get('category_id') as string,
        price: price.toNumber(),
        version: r.get('version') as number,
      });
    }
    return out;
  }

  async stock(productId: string, zone: string): Promise<StockLevel | null> {
    const rs = await this.db.execute(`SELECT available, version FROM stock_levels WHERE product_id = ? AND zone = ?`, [productId, zone], { prepare: true });
    const r = rs.first();
    return r ? { product_id: productId, zone, available: r.get('available') as number, version: r.get('version') as number } : null;
  }
}
