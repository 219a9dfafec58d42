/**
 * "New in category X" over time-bucketed partitions (ADR 0032 "Time-bucketed partitions"): the
 * rows of one creation period per partition, newest first. A page reads the newest period's
 * partition (or the cursor's) and walks back to older periods only while the page is short. Every
 * row of a period is newer than every row of an older one, so pages concatenate without a merge.
 * The cursor is the clustering key of the last item: stable under inserts.
 */
export interface ListingPosition {
  readonly created_at: Date;
  readonly product_id: string;
}

/** Reads one period's partition newest first, strictly after `after` when given, at most `limit` rows. */
export type PeriodReader<T> = (period: number, limit: number, after: ListingPosition | null) => Promise<T[]>;

/** Partition reads one page may make once it has rows (the per-request budget); past it the page ends early, with a cursor. */
export const MAX_PERIOD_READS = 8;

/**
 * One page: `periods` are the category's periods holding rows, newest first; `startPeriod` the
 * period of the cursor (null: first page). Reads partitions until `limit` + 1 rows are found (the
 * extra row says there is more), the periods run out, or the budget is spent with rows in hand.
 */
export async function newestPage<T extends ListingPosition>(
  periods: readonly number[],
  read: PeriodReader<T>,
  limit: number,
  after: { readonly position: ListingPosition; readonly period: number } | null,
  budget = MAX_PERIOD_READS,
): Promise<{ items: T[]; more: boolean; reads: number }> {
  // the cursor's period even if this instance's view of the periods predates it
  const walk = after === null ? periods : [after.period, ...periods.filter((p) => p < after.period)];
  const items: T[] = [];
  let reads = 0;
  for (const period of walk) {
    if (reads >= budget && items.length > 0) return { items, more: true, reads };
    const rows = await read(
      period,
      limit + 1 - items.length,
      after !== null && period === after.period ? after.position : null,
    );
    reads++;
    items.push(...rows);
    if (items.length > limit) return { items: items.slice(0, limit), more: true, reads };
  }
  return { items, more: false, reads };
}

export function encodeListingCursor(p: ListingPosition): string {
  return Buffer.from(JSON.stringify([p.created_at.getTime(), p.product_id])).toString('base64url');
}

export function decodeListingCursor(text: string): ListingPosition | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 2) return null;
    const [t, id] = v as unknown[];
    if (
      typeof t !== 'number' ||
      !Number.isSafeInteger(t) ||
      t < 0 ||
      typeof id !== 'string' ||
      !/^[0-9a-f]{24}$/.test(id)
    )
      return null;
    return { created_at: new Date(t), product_id: id };
  } catch {
    return null;
  }
}
