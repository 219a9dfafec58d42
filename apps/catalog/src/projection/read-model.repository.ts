import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { CategoryRow, ListingRow, ProductRow, ProjectionPlan, SeenVersion } from './read-model';

const long = (n: number | null): types.Long | null => (n === null ? null : types.Long.fromNumber(n));

/** Applies projection plans to Cassandra; every statement `USING TIMESTAMP` of the plan. */
@Injectable()
export class ReadModelRepository {
  constructor(@Inject(CASSANDRA) private readonly client: Client) {}

  async apply(plan: ProjectionPlan): Promise<void> {
    const ts = types.Long.fromString(plan.timestamp.toString());
    const writes: Promise<unknown>[] = [];
    if (plan.upsertProduct) writes.push(this.upsertProduct(plan.upsertProduct, ts));
    if (plan.deleteProduct) {
      writes.push(
        this.client.execute(
          'DELETE FROM products_by_id USING TIMESTAMP ? WHERE product_id = ?',
          [ts, plan.deleteProduct],
          { prepare: true },
        ),
      );
    }
    for (const r of plan.upsertRows) writes.push(this.upsertRow(r, ts));
    for (const r of plan.deleteRows) writes.push(this.deleteRow(r, ts));
    await Promise.all(writes);
    // Last: a crash before this line leaves the version unseen, so the event is applied again.
    await this.client.execute(
      `INSERT INTO product_versions (product_id, version, deleted, ancestors, created_at)
       VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?`,
      [
        plan.seen.product_id,
        long(plan.seen.version),
        plan.seen.deleted,
        [...plan.seen.ancestors],
        plan.seen.created_at,
        ts,
      ],
      { prepare: true },
    );
  }

  /** What the projector last applied for a product, or null. */
  async seen(productId: string): Promise<SeenVersion | null> {
    const r = (
      await this.client.execute(
        'SELECT product_id, version, deleted, ancestors, created_at FROM product_versions WHERE product_id = ?',
        [productId],
        { prepare: true },
      )
    ).first();
    if (!r) return null;
    return {
      product_id: r.get('product_id') as string,
      version: Number(r.get('version')),
      deleted: r.get('deleted') === true,
      ancestors: (r.get('ancestors') as string[] | null) ?? [],
      created_at: r.get('created_at') as Date,
    };
  }

  private upsertProduct(p: ProductRow, ts: types.Long): Promise<unknown> {
    return this.client.execute(
      `INSERT INTO products_by_id (product_id, version, name, category_id, ancestors, price, currency, attributes, list_price, retail_price, pct_savings, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
      [
        p.product_id,
        long(p.version),
        p.name,
        p.category_id,
        [...p.ancestors],
        long(p.price),
        p.currency,
        { ...p.attributes },
        long(p.list_price),
        long(p.retail_price),
        p.pct_savings,
        p.created_at,
        p.updated_at,
        ts,
      ],
      { prepare: true },
    );
  }

  private upsertRow(r: ListingRow, ts: types.Long): Promise<unknown> {
    return this.client.execute(
      `INSERT INTO products_by_category (category_id, bucket, created_at, product_id, name, price, attributes, pct_savings, product_category_id, version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
      [
        r.category_id,
        r.bucket,
        r.created_at,
        r.product_id,
        r.name,
        long(r.price),
        { ...r.attributes },
        r.pct_savings,
        r.product_category_id,
        long(r.version),
        ts,
      ],
      { prepare: true },
    );
  }

  deleteRow(r: CategoryRow, ts: types.Long): Promise<unknown> {
    return this.client.execute(
      'DELETE FROM products_by_category USING TIMESTAMP ? WHERE category_id = ? AND bucket = ? AND created_at = ? AND product_id = ?',
      [ts, r.category_id, r.bucket, r.created_at, r.product_id],
      { prepare: true },
    );
  }
}
