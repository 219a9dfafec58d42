import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { PricedProduct, ProductWrite, StockLevel, stockTimestamp } from './product';

const { Long } = types;
const ts = (t: bigint): types.Long => Long.fromString(t.toString());

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
    await this.db.execute(
      `INSERT INTO stock_levels (product_id, zone, available, version) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
      [level.product_id, level.zone, level.available, level.version, ts(stockTimestamp(level.version))],
      { prepare: true },
    );
  }

  async get(productId: string): Promise<PricedProduct | null> {
    return (await this.getMany([productId])).get(productId) ?? null;
  }

  /** The products of a cart (≤ 100 ids, one partition each, read in parallel). */
  async getMany(productIds: readonly string[]): Promise<Map<string, PricedProduct>> {
    const rows = await Promise.all(
      productIds.map((id) => this.db.execute(`SELECT product_id, name, category_id, price, version FROM products WHERE product_id = ?`, [id], { prepare: true })),
    );
    const out = new Map<string, PricedProduct>();
    for (const rs of rows) {
      const r = rs.first();
      if (!r) continue;
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
