import {
  decodeListingCursor,
  encodeListingCursor,
  ListingPosition,
  MAX_PERIOD_READS,
  newestPage,
} from './listing';

const row = (t: number, id: string): ListingPosition => ({
  created_at: new Date(t),
  product_id: id.padStart(24, '0'),
});

/** An in-memory table: period → rows newest first; records every partition read. */
function table(partitions: Record<number, ListingPosition[]>) {
  const reads: number[] = [];
  const read = async (period: number, limit: number, after: ListingPosition | null) => {
    reads.push(period);
    const rows = partitions[period] ?? [];
    const from = after
      ? rows.filter(
          (r) =>
            r.created_at.getTime() < after.created_at.getTime() ||
            (r.created_at.getTime() === after.created_at.getTime() && r.product_id < after.product_id),
        )
      : rows;
    return from.slice(0, limit);
  };
  return { read, reads };
}

const ids = (rows: readonly ListingPosition[]) => rows.map((r) => r.product_id.replace(/^0+/, ''));

describe('time-bucketed listing', () => {
  // period 9 newest: t in [90, 99]; period 8: [80, 89]; period 5: [50, 59]
  const partitions = {
    9: [row(95, 'a'), row(93, 'c'), row(93, 'b')],
    8: [row(88, 'd'), row(81, 'e')],
    5: [row(59, 'f'), row(50, 'g')],
  };
  const periods = [9, 8, 5];

  it('a first page the newest period holds is one partition read', async () => {
    const t = table(partitions);
    const page = await newestPage(periods, t.read, 2, null);
    expect(ids(page.items)).toEqual(['a', 'c']);
    expect(page.more).toBe(true);
    expect(t.reads).toEqual([9]);
  });

  it('walks back to older periods only while the page is short, newest first across periods', async () => {
    const t = table(partitions);
    const page = await newestPage(periods, t.read, 6, null);
    expect(ids(page.items)).toEqual(['a', 'c', 'b', 'd', 'e', 'f']);
    expect(page.more).toBe(true);
    expect(t.reads).toEqual([9, 8, 5]);
    const all = await newestPage(periods, table(partitions).read, 20, null);
    expect(ids(all.items)).toEqual(['a', 'c', 'b', 'd', 'e', 'f', 'g']);
    expect(all.more).toBe(false);
  });

  it('a cursor resumes in its own period, after its row, then goes on to older ones', async () => {
    const t = table(partitions);
    const page = await newestPage(periods, t.read, 3, { position: row(93, 'c'), period: 9 });
    expect(ids(page.items)).toEqual(['b', 'd', 'e']);
    // the fourth row, which says there is more, is in period 5
    expect(page.more).toBe(true);
    expect(t.reads).toEqual([9, 8, 5]);
    // the cursor's period is read even when this instance's list of periods predates it
    const stale = table(partitions);
    const again = await newestPage([8, 5], stale.read, 3, { position: row(93, 'c'), period: 9 });
    expect(ids(again.items)).toEqual(['b', 'd', 'e']);
    expect(stale.reads).toEqual([9, 8, 5]);
  });

  it('pages concatenate to the whole listing in order, none repeated or skipped', async () => {
    const seen: string[] = [];
    let after: { position: ListingPosition; period: number } | null = null;
    for (let i = 0; i < 10; i++) {
      const page: { items: ListingPosition[]; more: boolean } = await newestPage(
        periods,
        table(partitions).read,
        2,
        after,
      );
      seen.push(...ids(page.items));
      if (!page.more) break;
      const last = page.items[page.items.length - 1]!;
      after = { position: last, period: Math.floor(last.created_at.getTime() / 10) };
    }
    expect(seen).toEqual(['a', 'c', 'b', 'd', 'e', 'f', 'g']);
  });

  it('stops at the read budget once it has rows, with a cursor to go on from', async () => {
    const sparse = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [100 - i, [row((100 - i) * 10, `${i + 1}`)]]),
    );
    const t = table(sparse);
    const page = await newestPage(
      Object.keys(sparse)
        .map(Number)
        .sort((a, b) => b - a),
      t.read,
      15,
      null,
    );
    expect(page.items).toHaveLength(MAX_PERIOD_READS);
    expect(page.more).toBe(true);
    expect(t.reads).toHaveLength(MAX_PERIOD_READS);
  });

  it('cursors round-trip and garbage is rejected', () => {
    const p = row(1767225600000, 'abc');
    expect(decodeListingCursor(encodeListingCursor(p))).toEqual(p);
    expect(decodeListingCursor('xyz')).toBeNull();
    expect(decodeListingCursor(Buffer.from('[1,"$where"]').toString('base64url'))).toBeNull();
  });
});
