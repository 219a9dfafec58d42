import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { ListingRow, ProductRow } from '../projection/read-model';
import { ListingPosition } from './listing';

const num = (v: unknown): number | null =>
  v === null || v === undefined ? null : v instanceof types.Long ? v.toNumber() : Number(v);

/** Reads of the Cassandra read model (LOCAL_QUORUM, prepared). */
@Injectable()
export class ListingRepository {
  constructor(@Inject(CASSANDRA) private readonly client: Client) {}

  /** The periods of a category holding rows, newest first (category_periods). */
  async periods(categoryId: string): Promise<number[]> {
    const rs = await this.client.execute(
      'SELECT period FROM category_periods WHERE category_id = ?',
      [categoryId],
      { prepare: true, fetchSize: 5000 },
    );
    return rs.rows.map((r) => r['period'] as number);
  }

  /** One period's partition of a category, newest first, strictly after `after`. */
  async periodPage(
    categoryId: string,
    bucket: number,
    limit: number,
    after: ListingPosition | null,
  ): Promise<ListingRow[]> {
    const cols =
      'category_id, bucket, created_at, product_id, name, price, attributes, pct_savings, product_category_id, version';
    const rs = after
      ? await this.client.execute(
          `SELECT ${cols} FROM products_by_category WHERE category_id = ? AND bucket = ? AND (created_at, product_id) < (?, ?) LIMIT ?`,
          [categoryId, bucket, after.created_at, after.product_id, limit],
          { prepare: true },
        )
      : await this.client.execute(
          `SELECT ${cols} FROM products_by_category WHERE category_id = ? AND bucket = ? LIMIT ?`,
          [categoryId, bucket, limit],
          {
            prepare: true,
          },
        );
    return rs.rows.map((r) => ({
      category_id: r['category_id'] as string,
      bucket: r['bucket'] as number,
      created_at: r['created_at'] as Date,
      product_id: r['product_id'] as string,
      name: r['name'] as string,
      price: num(r['price']) ?? 0,
      attributes: (r['attributes'] as Record<string, string> | null) ?? {},
      pct_savings: num(r['pct_savings']),
      product_category_id: r['product_category_id'] as string,
      version: num(r['version']) ?? 0,
    }));
  }

  async product(id: string): Promise<ProductRow | null> {
    const rs = await this.client.execute('SELECT * FROM products_by_id WHERE product_id = ?', [id], {
      prepare: true,
    });
    const r = rs.first();
    return r ? toProductRow(r) : null;
  }

  /** Every product row (verify): paged through the driver. */
  async *allProducts(): AsyncGenerator<ProductRow> {
    for await (const r of this.client.stream('SELECT * FROM products_by_id', [], {
      prepare: true,
      fetchSize: 500,
    }) as unknown as AsyncIterable<types.Row>) {
      yield toProductRow(r);
    }
  }

  /** Every period-index entry (verify): paged through the driver. */
  async *allPeriods(): AsyncGenerator<{ category_id: string; period: number }> {
    const it = this.client.stream('SELECT category_id, period FROM category_periods', [], {
      prepare: true,
      fetchSize: 1000,
    }) as unknown as AsyncIterable<types.Row>;
    for await (const r of it)
      yield { category_id: r['category_id'] as string, period: r['period'] as number };
  }

  /** Every listing row (verify): paged through the driver. */
  async *allRows(): AsyncGenerator<ListingRow> {
    const it = this.client.stream(
      'SELECT category_id, bucket, created_at, product_id, name, price, attributes, pct_savings, product_category_id, version FROM products_by_category',
      [],
      {
        prepare: true,
        fetchSize: 1000,
      },
    ) as unknown as AsyncIterable<types.Row>;
    for await (const r of it) {
      yield {
        category_id: r['category_id'] as string,
        bucket: r['bucket'] as number,
        created_at: r['created_at'] as Date,
        product_id: r['product_id'] as string,
        name: r['name'] as string,
        price: num(r['price']) ?? 0,
        attributes: (r['attributes'] as Record<string, string> | null) ?? {},
        pct_savings: num(r['pct_savings']),
        product_category_id: r['product_category_id'] as string,
        version: num(r['version']) ?? 0,
      };
    }
  }
}

function toProductRow(r: types.Row): ProductRow {
  return {
    product_id: r['product_id'] as string,
    version: num(r['version']) ?? 0,
    name: r['name'] as string,
    category_id: r['category_id'] as string,
    ancestors: (r['ancestors'] as string[] | null) ?? [],
    price: num(r['price']) ?? 0,
    currency: r['currency'] as string,
    attributes: (r['attributes'] as Record<string, string> | null) ?? {},
    list_price: num(r['list_price']),
    retail_price: num(r['retail_price']),
    pct_savings: num(r['pct_savings']),
    created_at: r['created_at'] as Date,
    updated_at: r['updated_at'] as Date,
  };
}
