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
  readonly items: ListingRow[];
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
   * a page), the category's periods coming from a short-lived cache.
   */
  async newest(
    categoryId: string,
    limit: number,
    after: ListingPosition | null,
  ): Promise<{ items: ListingRow[]; next_cursor: string | null }> {
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
