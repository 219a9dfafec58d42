import { periodOf, CategoryRow, ListingRow, ProductRow, SnapshotLike, writeTimestamp } from './read-model';

/**
 * Application-level anti-entropy (seed 003): what the read side should hold for the write
 * model, and the differences. Plain data; the scripts do the I/O.
 */
export interface SourceProduct extends SnapshotLike {
  readonly deleted: boolean;
}

export type Mismatch =
  | {
      readonly kind: 'missing-product' | 'stale-product';
      readonly product_id: string;
      readonly detail: string;
    }
  | { readonly kind: 'extra-product'; readonly product_id: string; readonly version: number }
  | {
      readonly kind: 'missing-row' | 'stale-row';
      readonly product_id: string;
      readonly category_id: string;
      readonly detail: string;
    }
  | { readonly kind: 'extra-row'; readonly row: CategoryRow; readonly product_id: string }
  /** A period holding rows of the category that category_periods does not list: the listing never reads them. */
  | {
      readonly kind: 'missing-period';
      readonly product_id: string;
      readonly category_id: string;
      readonly period: number;
    };

const rowKey = (r: CategoryRow): string =>
  `${r.category_id}|${r.bucket}|${r.created_at.getTime()}|${r.product_id}`;

/** Compares one product's expected state with the rows found for it. */
export function diffProduct(
  src: SourceProduct | undefined,
  row: ProductRow | undefined,
  productId: string,
): Mismatch[] {
  if (!src || src.deleted)
    return row ? [{ kind: 'extra-product', product_id: productId, version: row.version }] : [];
  if (!row) return [{ kind: 'missing-product', product_id: productId, detail: `version ${src.version}` }];
  const problems: string[] = [];
  if (row.version !== src.version) problems.push(`version ${row.version} ≠ ${src.version}`);
  if (row.price !== src.price) problems.push(`price ${row.price} ≠ ${src.price}`);
  if (row.name !== src.name) problems.push('name');
  if (row.category_id !== src.category_id) problems.push(`category ${row.category_id} ≠ ${src.category_id}`);
  return problems.length
    ? [{ kind: 'stale-product', product_id: productId, detail: problems.join(', ') }]
    : [];
}

/** Listing rows that should exist for live products (the fan-out over ancestors). */
export function expectedRows(src: SourceProduct, periodDays: number): CategoryRow[] {
  if (src.deleted) return [];
  const created_at = new Date(src.created_at);
  const bucket = periodOf(created_at, periodDays);
  return src.ancestors.map((category_id) => ({
    category_id,
    bucket,
    created_at,
    product_id: src.product_id,
  }));
}

export function diffRows(
  sources: ReadonlyMap<string, SourceProduct>,
  actual: readonly ListingRow[],
  periodDays: number,
): Mismatch[] {
  const out: Mismatch[] = [];
  const found = new Map(actual.map((r) => [rowKey(r), r]));
  for (const src of sources.values()) {
    for (const key of expectedRows(src, periodDays)) {
      const r = found.get(rowKey(key));
      if (!r)
        out.push({
          kind: 'missing-row',
          product_id: src.product_id,
          category_id: key.category_id,
          detail: `version ${src.version}`,
        });
      else if (r.version !== src.version || r.price !== src.price) {
        out.push({
          kind: 'stale-row',
          product_id: src.product_id,
          category_id: key.category_id,
          detail: `version ${r.version} ≠ ${src.version}`,
        });
      }
      found.delete(rowKey(key));
    }
  }
  for (const r of found.values()) out.push({ kind: 'extra-row', row: r, product_id: r.product_id });
  return out;
}

/** Periods live products are listed in that the category's period index lacks (one mismatch per period). */
export function diffPeriods(
  sources: ReadonlyMap<string, SourceProduct>,
  indexed: readonly { readonly category_id: string; readonly period: number }[],
  periodDays: number,
): Mismatch[] {
  const have = new Set(indexed.map((p) => `${p.category_id}|${p.period}`));
  const out = new Map<string, Mismatch>();
  for (const src of sources.values())
    for (const r of expectedRows(src, periodDays)) {
      const key = `${r.category_id}|${r.bucket}`;
      if (!have.has(key) && !out.has(key))
        out.set(key, {
          kind: 'missing-period',
          product_id: src.product_id,
          category_id: r.category_id,
          period: r.bucket,
        });
    }
  return [...out.values()];
}

/** Timestamp for deleting an extra row: above anything written for the product's known version. */
export function repairTimestamp(
  src: SourceProduct | undefined,
  fallbackCreatedAt: Date,
  rowVersion: number,
): bigint {
  return src
    ? writeTimestamp(new Date(src.created_at), src.version)
    : writeTimestamp(fallbackCreatedAt, rowVersion + 1);
}
