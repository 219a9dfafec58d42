import { CategoriesRepository } from '../categories/categories.repository';
import { CategoryTraffic } from '../categories/category-traffic';
import type { ListingRow } from '../projection/read-model';
import { ListingRepository } from './listing.repository';
import { ListingService } from './listing.service';

const row = (t: number): ListingRow => ({
  category_id: 'c1',
  bucket: 9,
  created_at: new Date(t),
  product_id: t.toString(16).padStart(24, '0'),
  name: `p${t}`,
  price: 100,
  attributes: {},
  pct_savings: null,
  product_category_id: 'c1',
  version: 1,
});

/** The repository port: one period, its partition reads held until released. */
class Partitions {
  reads = 0;
  fail = false;
  private pending: (() => void)[] = [];
  async periods(): Promise<number[]> {
    return [9];
  }
  periodPage(_c: string, _p: number, limit: number): Promise<ListingRow[]> {
    this.reads++;
    return new Promise((resolve, reject) =>
      this.pending.push(() =>
        this.fail ? reject(new Error('read timeout')) : resolve([row(3), row(2), row(1)].slice(0, limit)),
      ),
    );
  }
  release(): void {
    for (const r of this.pending.splice(0)) r();
  }
}

function service(repo: Partitions): ListingService {
  return new ListingService(
    repo as unknown as ListingRepository,
    {} as CategoriesRepository,
    {} as CategoryTraffic,
    { CATALOG_LISTING_PERIOD_DAYS: 30 },
  );
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ListingService first pages: single flight', () => {
  it('a first page asked for while the same one is being read shares that read; the next one reads again', async () => {
    const repo = new Partitions();
    const listing = service(repo);
    const a = listing.newest('c1', 2, null);
    const b = listing.newest('c1', 2, null);
    const otherSize = listing.newest('c1', 1, null);
    await tick();
    expect(repo.reads).toBe(2); // one per (category, page size)
    repo.release();
    expect((await a).items.map((r) => r.name)).toEqual(['p3', 'p2']);
    expect(await b).toBe(await a);
    expect((await otherSize).items).toHaveLength(1);
    const c = listing.newest('c1', 2, null);
    await tick();
    expect(repo.reads).toBe(3);
    repo.release();
    await c;
  });

  it('never shares a cursor page, and a failed read is not kept', async () => {
    const repo = new Partitions();
    const listing = service(repo);
    const after = { created_at: new Date(3), product_id: '3'.padStart(24, '0') };
    const pages = [listing.newest('c1', 2, after), listing.newest('c1', 2, after)];
    await tick();
    expect(repo.reads).toBe(2);
    repo.release();
    await Promise.all(pages);
    repo.fail = true;
    const failed = listing.newest('c1', 2, null);
    await tick();
    repo.release();
    await expect(failed).rejects.toThrow('read timeout');
    repo.fail = false;
    const retried = listing.newest('c1', 2, null);
    await tick();
    expect(repo.reads).toBe(4);
    repo.release();
    expect((await retried).items).toHaveLength(2);
  });
});
