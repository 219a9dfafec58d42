import { Injectable } from '@nestjs/common';
import { CategoriesRepository } from '../categories/categories.repository';
import { CategoryTraffic } from '../categories/category-traffic';
import { toProduct } from '../products/product.mapper';
import { Product } from '../products/product';
import { CatalogErrors } from '../shared/errors';
import { buildSearch, Cursor, cursorAfter, decodeCursor, encodeCursor } from './search-query';
import { SearchRepository } from './search.repository';
import { SearchQuery } from './search.dto';

export interface SearchPage {
  readonly items: Product[];
  readonly next_cursor: string | null;
}

@Injectable()
export class SearchService {
  constructor(
    private readonly repo: SearchRepository,
    private readonly categories: CategoriesRepository,
    private readonly traffic: CategoryTraffic,
  ) {}

  async search(q: SearchQuery): Promise<SearchPage> {
    if (q.category_id) {
      const category = await this.categories.findById(q.category_id);
      if (!category) throw CatalogErrors.unknownCategory('query.category_id', q.category_id);
      this.traffic.count(category);
    }
    let cursor: Cursor | undefined;
    if (q.cursor !== undefined) {
      const c = decodeCursor(q.cursor, q.sort);
      if (!c) throw CatalogErrors.invalidCursor();
      cursor = c;
    }
    const query = buildSearch({
      ...(q.category_id ? { category_id: q.category_id } : {}),
      include_subcategories: q.include_subcategories,
      ...(q.min_price !== undefined ? { min_price: q.min_price } : {}),
      ...(q.max_price !== undefined ? { max_price: q.max_price } : {}),
      attributes: q.attributes ?? {},
      sort: q.sort,
      limit: q.limit + 1,
      ...(cursor ? { cursor } : {}),
    });
    const docs = await this.repo.find(query);
    const page = docs.slice(0, q.limit);
    const last = page[page.length - 1];
    const next =
      docs.length > q.limit && last
        ? encodeCursor(
            cursorAfter(q.sort, {
              id: last._id.toHexString(),
              price: last.price,
              discount_pct: last.discount_pct,
              created_at: last.created_at,
            }),
          )
        : null;
    return { items: page.map(toProduct), next_cursor: next };
  }
}
