import { Client, types } from 'cassandra-driver';
import { Db } from 'mongodb';
import {
  diffPeriods,
  diffProduct,
  diffRows,
  Mismatch,
  repairTimestamp,
  SourceProduct,
} from '../src/projection/anti-entropy';
import { planFor, ProductRow } from '../src/projection/read-model';
import { ReadModelRepository } from '../src/projection/read-model.repository';
import { ListingRepository } from '../src/listing/listing.repository';
import { PRODUCTS, ProductDoc } from '../src/shared/catalog-db';
import { sourceOf } from './context';

/** Loads every product (live and tombstones) from MongoDB. */
export async function loadSources(db: Db): Promise<Map<string, SourceProduct>> {
  const out = new Map<string, SourceProduct>();
  for await (const d of db.collection<ProductDoc>(PRODUCTS).find({}, { projection: { _outbox: 0 } }))
    out.set(d._id.toHexString(), sourceOf(d));
  return out;
}

/** Diff of MongoDB against Cassandra: products_by_id, products_by_category and its period index. */
export async function diffAll(
  db: Db,
  cassandra: Client,
  periodDays: number,
): Promise<{ sources: Map<string, SourceProduct>; mismatches: Mismatch[]; rows: ProductRow[] }> {
  const sources = await loadSources(db);
  const listing = new ListingRepository(cassandra);
  const rows: ProductRow[] = [];
  for await (const r of listing.allProducts()) rows.push(r);
  const byId = new Map(rows.map((r) => [r.product_id, r]));
  const mismatches: Mismatch[] = [];
  for (const id of new Set([...sources.keys(), ...byId.keys()]))
    mismatches.push(...diffProduct(sources.get(id), byId.get(id), id));
  const listingRows = [];
  for await (const r of listing.allRows()) listingRows.push(r);
  mismatches.push(...diffRows(sources, listingRows, periodDays));
  const periods = [];
  for await (const p of listing.allPeriods()) periods.push(p);
  mismatches.push(...diffPeriods(sources, periods, periodDays));
  return { sources, mismatches, rows };
}

/**
 * Repopulates the read side from MongoDB with the projector's own plans (same timestamps as
 * the events, so it never overwrites a newer projected state), then deletes what should not be there.
 */
export async function rebuild(
  db: Db,
  cassandra: Client,
  periodDays: number,
  concurrency = 16,
): Promise<{ written: number; removed: number }> {
  const repo = new ReadModelRepository(cassandra);
  const sources = await loadSources(db);
  const list = [...sources.values()];
  let written = 0;
  for (let i = 0; i < list.length; i += concurrency) {
    await Promise.all(
      list.slice(i, i + concurrency).map((s) =>
        repo.apply(
          s.deleted
            ? planFor(
                {
                  type: 'ProductDeleted',
                  payload: {
                    product_id: s.product_id,
                    version: s.version,
                    ancestors: s.ancestors,
                    created_at: s.created_at,
                  },
                },
                periodDays,
              )
            : planFor({ type: 'ProductUpdated', payload: s }, periodDays),
        ),
      ),
    );
    written += Math.min(concurrency, list.length - i);
  }
  const { mismatches } = await diffAll(db, cassandra, periodDays);
  let removed = 0;
  for (const m of mismatches) {
    if (m.kind === 'extra-row') {
      await repo.deleteRow(
        m.row,
        types.Long.fromString(repairTimestamp(sources.get(m.product_id), m.row.created_at, 0).toString()),
      );
      removed++;
    } else if (m.kind === 'extra-product') {
      const ts = repairTimestamp(sources.get(m.product_id), new Date(0), m.version);
      await cassandra.execute(
        'DELETE FROM products_by_id USING TIMESTAMP ? WHERE product_id = ?',
        [types.Long.fromString(ts.toString()), m.product_id],
        { prepare: true },
      );
      removed++;
    }
  }
  return { written, removed };
}
