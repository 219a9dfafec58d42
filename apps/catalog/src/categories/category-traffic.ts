import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics } from '@mw/platform';
import type { Category } from './category';

/** The root of a category's tree (itself for a root): the unit seed 002's hot-spot watch counts. */
export const rootSlugOf = (category: Pick<Category, 'slug' | 'ancestors'>): string =>
  category.ancestors[0]?.slug ?? category.slug;

/**
 * `catalog_category_requests_total{category}`: catalog reads that name a category (listing, search by
 * category), by root category — the share of each root is seed 002's "70 % of traffic on Электроника"
 * (alert HotCategory). Labels are the root categories only, a handful.
 */
@Injectable()
export class CategoryTraffic {
  private readonly requests: Counter<'category'>;

  constructor(metrics: Metrics) {
    this.requests = new Counter({
      name: 'catalog_category_requests_total',
      help: 'Catalog reads naming a category (listing, search), by root category',
      labelNames: ['category'],
      registers: [metrics.registry],
    });
  }

  count(category: Pick<Category, 'slug' | 'ancestors'>): void {
    this.requests.inc({ category: rootSlugOf(category) });
  }
}
