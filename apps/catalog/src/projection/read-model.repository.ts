import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { CategoryRow, ProjectionPlan, SeenVersion, writeTimestamp } from './read-model';

const long = (n: number | null): types.Long | null => (n === null ? null : types.Long.fromNumber(n));

/** One CQL statement and the Cassandra partition it writes. */
interface Write {
  readonly partition: string;
  readonly query: string;
  readonly params: unknown[];
}

/**
 * Statements per unlogged batch: a batch of one partition is applied as one mutation (one commit
 * log entry), and this bound keeps it below Cassandra's batch_size_warn_threshold (5 KiB) for the
 * rows of this read model (about 200 bytes each).
 */
export const STATEMENTS_PER_BATCH = 20;

/**
 * Single-statement partitions packed into one unlogged batch: Cassandra's
 * unlogged_batch_across_partitions_warn_threshold (10). On a cluster such a batch is not
 * token-aware (its coordinator forwards to the other replicas); the rows of a category partition
 * are never mixed.
 */
export const PARTITIONS_PER_BATCH = 10;

/** Write requests one applyAll keeps in flight (writeGrouped). */
export const REQUESTS_IN_FLIGHT = 128;

const UPSERT_PRODUCT = `INSERT INTO products_by_id (product_id, version, name, category_id, ancestors, price, currency, attributes, list_price, retail_price, pct_savings, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`;
const DELETE_PRODUCT = 'DELETE FROM products_by_id USING TIMESTAMP ? WHERE product_id = ?';
const UPSERT_ROW = `INSERT INTO products_by_category (category_id, bucket, created_at, product_id, name, price, attributes, pct_savings, product_category_id, version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`;
const DELETE_ROW =
  'DELETE FROM products_by_category USING TIMESTAMP ? WHERE category_id = ? AND bucket = ? AND created_at = ? AND product_id = ?';
/**
 * No USING TIMESTAMP: an entry is only ever added and carries no data, so the write time of now
 * is right — and a rebuild restores an entry someone deleted by hand.
 */
const ADD_PERIOD = 'INSERT INTO category_periods (category_id, period) VALUES (?, ?)';
const UPSERT_SEEN = `INSERT INTO product_versions (product_id, version, deleted, ancestors, created_at)
       VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?`;

const tsOf = (timestamp: bigint): types.Long => types.Long.fromString(timestamp.toString());

/** Applies projection plans to Cassandra; every statement `USING TIMESTAMP` of the plan. */
@Injectable()
export class ReadModelRepository {
  constructor(@Inject(CASSANDRA) private readonly client: Client) {}

  async apply(plan: ProjectionPlan): Promise<void> {
    await this.applyAll([plan], [plan.seen]);
  }

  /**
   * Applies many plans with few round trips: every row statement of every plan, grouped by the
   * Cassandra partition it writes, goes as unlogged batches of one partition each, all at once;
   * each statement keeps its plan's `USING TIMESTAMP`, so the order inside a batch does not
   * matter (last write wins by version). Only once all of them are acknowledged are the seen
   * versions written: a crash in between leaves the versions unseen and the events are applied
   * again (idempotent by timestamp).
   */
  async applyAll(plans: readonly ProjectionPlan[], seen: readonly SeenVersion[]): Promise<void> {
    const rows: Write[] = [];
    for (const plan of plans) rows.push(...planWrites(plan));
    rows.push(...periodWrites(plans));
    await this.writeGrouped(rows);
    // Last: a crash before this line leaves the versions unseen, so the events are applied again.
    await this.writeGrouped(
      seen.map((v) => ({
        partition: `v/${v.product_id}`,
        query: UPSERT_SEEN,
        params: [
          v.product_id,
          long(v.version),
          v.deleted,
          [...v.ancestors],
          v.created_at,
          // the timestamp of the plan that wrote this version (planFor)
          tsOf(writeTimestamp(v.created_at, v.version)),
        ],
      })),
    );
  }

  deleteRow(r: CategoryRow, ts: types.Long): Promise<unknown> {
    return this.client.execute(DELETE_ROW, [ts, r.category_id, r.bucket, r.created_at, r.product_id], {
      prepare: true,
    });
  }

  private async writeGrouped(writes: readonly Write[]): Promise<void> {
    const byPartition = new Map<string, Write[]>();
    for (const w of writes) {
      const group = byPartition.get(w.partition);
      if (group) group.push(w);
      else byPartition.set(w.partition, [w]);
    }
    const requests: Write[][] = [];
    // A partition's lone statement (a product's card or seen version) shares an unlogged batch
    // with up to PARTITIONS_PER_BATCH others: one request instead of ten for the driver, still
    // one mutation per partition on the replicas.
    let lone: Write[] = [];
    for (const group of byPartition.values()) {
      if (group.length === 1) {
        lone.push(group[0]!);
        if (lone.length === PARTITIONS_PER_BATCH) {
          requests.push(lone);
          lone = [];
        }
        continue;
      }
      for (let i = 0; i < group.length; i += STATEMENTS_PER_BATCH)
        requests.push(group.slice(i, i + STATEMENTS_PER_BATCH));
    }
    if (lone.length > 0) requests.push(lone);
    // A whole fetched batch is thousands of requests: at most REQUESTS_IN_FLIGHT at once, below
    // the driver's in-flight limit per connection (2,048) even with every partition consuming.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const part = requests[next++]!;
        await (part.length === 1
          ? this.client.execute(part[0]!.query, part[0]!.params, { prepare: true })
          : this.client.batch(
              part.map((w) => ({ query: w.query, params: w.params })),
              { prepare: true, logged: false },
            ));
      }
    };
    await Promise.all(Array.from({ length: Math.min(REQUESTS_IN_FLIGHT, requests.length) }, worker));
  }

  /**
   * What the projector last applied for many products: one `IN` read per SEEN_PER_READ products
   * instead of one request each (the driver's per-request CPU was most of the read cost).
   */
  async seenAll(productIds: readonly string[]): Promise<Map<string, SeenVersion>> {
    const out = new Map<string, SeenVersion>();
    const reads: Promise<void>[] = [];
    for (let i = 0; i < productIds.length; i += SEEN_PER_READ) {
      const ids = productIds.slice(i, i + SEEN_PER_READ);
      reads.push(
        this.client
          .execute(`${SELECT_SEEN} IN ?`, [ids], { prepare: true, fetchSize: SEEN_PER_READ + 1 })
          .then((rs) => {
            for (const r of rs.rows) {
              const v = toSeen(r);
              out.set(v.product_id, v);
            }
          }),
      );
    }
    await Promise.all(reads);
    return out;
  }

  /** What the projector last applied for a product, or null. */
  async seen(productId: string): Promise<SeenVersion | null> {
    const r = (await this.client.execute(`${SELECT_SEEN} = ?`, [productId], { prepare: true })).first();
    return r ? toSeen(r) : null;
  }
}

/** Products per `IN` read of product_versions (seenAll): a coordinator's fan-out stays small. */
export const SEEN_PER_READ = 100;
const SELECT_SEEN = 'SELECT product_id, version, deleted, ancestors, created_at FROM product_versions WHERE product_id';

function toSeen(r: types.Row): SeenVersion {
  return {
    product_id: r.get('product_id') as string,
    version: Number(r.get('version')),
    deleted: r.get('deleted') === true,
    ancestors: (r.get('ancestors') as string[] | null) ?? [],
    created_at: r.get('created_at') as Date,
  };
}

/** The row statements of one plan (the seen version apart: it is written after all of them). */
function planWrites(plan: ProjectionPlan): Write[] {
  const ts = tsOf(plan.timestamp);
  const out: Write[] = [];
  const p = plan.upsertProduct;
  if (p)
    out.push({
      partition: `p/${p.product_id}`,
      query: UPSERT_PRODUCT,
      params: [
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
    });
  if (plan.deleteProduct)
    out.push({
      partition: `p/${plan.deleteProduct}`,
      query: DELETE_PRODUCT,
      params: [ts, plan.deleteProduct],
    });
  for (const r of plan.upsertRows)
    out.push({
      partition: categoryPartition(r),
      query: UPSERT_ROW,
      params: [
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
    });
  for (const r of plan.deleteRows)
    out.push({
      partition: categoryPartition(r),
      query: DELETE_ROW,
      params: [ts, r.category_id, r.bucket, r.created_at, r.product_id],
    });
  return out;
}

const categoryPartition = (r: CategoryRow): string => `c/${r.category_id}/${r.bucket}`;

/** One period-index entry per (category, period) the plans list a product in, before its rows are read. */
function periodWrites(plans: readonly ProjectionPlan[]): Write[] {
  const out = new Map<string, Write>();
  for (const plan of plans)
    for (const r of plan.upsertRows) {
      const key = categoryPartition(r);
      if (!out.has(key))
        out.set(key, {
          partition: `cp/${r.category_id}`,
          query: ADD_PERIOD,
          params: [r.category_id, r.bucket],
        });
    }
  return [...out.values()];
}
