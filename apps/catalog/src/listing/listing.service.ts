import { Inject, Injectable } from '@nestjs/common';
import { CategoriesRepository } from '../categories/categories.repository';
import type { CatalogConfig } from '../config';
import { ListingRow, ProductRow } from '../projection/read-model';
import { CatalogErrors } from '../shared/errors';
import { CATALOG_CONFIG } from '../shared/tokens';
import { decodeListingCursor, encodeListingCursor, mergeNewest } from './listing';
import { ListingRepository } from './listing.repository';

export interface ListingPage {
  readonly category: { readonly id: string; readonly slug: string; readonly name: string };
  readonly items: ListingRow[];
  readonly next_cursor: string | null;
}

/** The read side served from Cassandra. */
@Injectable()
export class ListingService {
  constructor(
    private readonly repo: ListingRepository,
    private readonly categories: CategoriesRepository,
    @Inject(CATALOG_CONFIG) private readonly config: Pick<CatalogConfig, 'CATALOG_LISTING_BUCKETS'>,
  ) {}

  async newestInCategory(slug: string, limit: number, cursor: string | undefined): Promise<ListingPage> {
    const category = await this.categories.findBySlug(slug);
    if (!category) throw CatalogErrors.categoryNotFound(`"${slug}"`);
    const after = cursor === undefined ? null : decodeListingCursor(cursor);
    if (cursor !== undefined && !after) throw CatalogErrors.invalidCursor();
    const page = await this.newest(category.id, limit, after);
    return { category: { id: category.id, slug: category.slug, name: category.name }, ...page };
  }

  /** Reads limit+1 from every bucket in parallel, merges, cuts. */
  async newest(
    categoryId: string,
    limit: number,
    after: ReturnType<typeof decodeListingCursor>,
  ): Promise<{ items: ListingRow[]; next_cursor: string | null }> {
    const buckets = Array.from({ length: this.config.CATALOG_LISTING_BUCKETS }, (_, b) => b);
    const pages = await Promise.all(
      buckets.map((b) => this.repo.bucketPage(categoryId, b, limit + 1, after)),
    );
    const { items, more } = mergeNewest(pages, limit);
    const last = items[items.length - 1];
    return { items, next_cursor: more && last ? encodeListingCursor(last) : null };
  }

  async card(id: string): Promise<ProductRow> {
    const p = await this.repo.product(id);
    if (!p) throw CatalogErrors.productNotFound(id);
    return p;
  }
}
