import { Inject, Injectable } from '@nestjs/common';
import { CategoriesRepository } from '../categories/categories.repository';
import { CategoryTraffic } from '../categories/category-traffic';
import type { CatalogConfig } from '../config';
import { CatalogErrors } from '../shared/errors';
import { CATALOG_CONFIG } from '../shared/tokens';
import { ListingRow, periodOf, ProductRow } from '../projection/read-model';
import { decodeListingCursor, encodeListingCursor, ListingPosition, newestPage } from './listing';
import { ListingRepository } from './listing.repository';

export interface ListingPage {
  readonly category: { readonly id: string; readonly slug: string; readonly name: string };
  readonly items: readonly ListingRow[];
  readonly next_cursor: string | null;
}

/**
 * How long a category's list of periods is reused. A period that starts holding rows becomes
 * visible within this; the partitions themselves are read every time.
 */
export const PERIODS_CACHE_MS = 2000;
const MAX_CACHED_CATEGORIES = 10_000;

/** The read side served from Cassandra. */
@Injectable()
export class ListingService {
  /** First pages being read now, by category and page size (single flight, see newest). */
  private readonly firstPages = new Map<
    string,
    Promise<{ items: readonly ListingRow[]; next_cursor: string | null }>
  >();
  private readonly periodsCache = new Map<
    string,
    { readonly periods: Promise<number[]>; readonly until: number }
  >();

  constructor(
    private readonly repo: ListingRepository,
    private readonly categories: CategoriesRepository,
    private readonly traffic: CategoryTraffic,
    @Inject(CATALOG_CONFIG) private readonly config: Pick<CatalogConfig, 'CATALOG_LISTING_PERIOD_DAYS'>,
  ) {}

  async newestInCategory(slug: string, limit: number, cursor: string | undefined): Promise<ListingPage> {
    const category = await this.categories.findBySlug(slug);
    if (!category) throw CatalogErrors.categoryNotFound(`"${slug}"`);
    this.traffic.count(category);
    const after = cursor === undefined ? null : decodeListingCursor(cursor);
    if (cursor !== undefined && !after) throw CatalogErrors.invalidCursor();
    const page = await this.newest(category.id, limit, after);
    return { category: { id: category.id, slug: category.slug, name: category.name }, ...page };
  }

  /**
   * The newest rows after `after`: in the common case one partition read (the newest period holds
   * a page), the category's periods coming from a short-lived cache. A first page asked for while
   * the same one is being read shares that read (single flight): it is as fresh as a read that
   * started while the request was already waiting, and a hot category's burst of identical
   * requests costs Cassandra one read instead of one each. Nothing is kept once the read returns.
   */
  newest(
    categoryId: string,
    limit: number,
    after: ListingPosition | null,
  ): Promise<{ items: readonly ListingRow[]; next_cursor: string | null }> {
    if (after !== null) return this.read(categoryId, limit, after);
    const key = `${categoryId}/${limit}`;
    const inFlight = this.firstPages.get(key);
    if (inFlight) return inFlight;
    const page = this.read(categoryId, limit, null);
    this.firstPages.set(key, page);
    const done = () => this.firstPages.delete(key);
    void page.then(done, done);
    return page;
  }

  private async read(
    categoryId: string,
    limit: number,
    after: ListingPosition | null,
  ): Promise<{ items: readonly ListingRow[]; next_cursor: string | null }> {
    const { items, more } = await newestPage(
      await this.periodsOf(categoryId),
      (period, n, from) => this.repo.periodPage(categoryId, period, n, from),
      limit,
      after && {
        position: after,
        period: periodOf(after.created_at, this.config.CATALOG_LISTING_PERIOD_DAYS),
      },
    );
    const last = items[items.length - 1];
    return { items, next_cursor: more && last ? encodeListingCursor(last) : null };
  }

  private periodsOf(categoryId: string): Promise<number[]> {
    const now = Date.now();
    const hit = this.periodsCache.get(categoryId);
    if (hit && hit.until > now) return hit.periods;
    if (this.periodsCache.size >= MAX_CACHED_CATEGORIES) this.periodsCache.clear();
    const periods = this.repo.periods(categoryId);
    this.periodsCache.set(categoryId, { periods, until: now + PERIODS_CACHE_MS });
    // a failed read is not cached
    periods.catch(() => this.periodsCache.delete(categoryId));
    return periods;
  }

  async card(id: string): Promise<ProductRow> {
    const p = await this.repo.product(id);
    if (!p) throw CatalogErrors.productNotFound(id);
    return p;
  }
}
