import { Controller } from '@nestjs/common';
import { Endpoint, Input, type InputOf } from '@mw/platform';
import {
  type BasketReport,
  basketView,
  type CancellationsReport,
  cancellationsView,
  type SalesReport,
  salesView,
  type TopProductsReport,
  topProductsView,
} from './analytics-view';
import { getBasket, getCancellations, getSales, getTopProducts } from './analytics.endpoints';
import { AnalyticsQueries } from './analytics.service';

/** The analytics HTTP API (ADR 0051): every operation declared in analytics.endpoints.ts, for operators. */
@Controller()
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsQueries) {}

  @Endpoint(getSales)
  async sales(@Input() input: InputOf<typeof getSales>): Promise<SalesReport> {
    return salesView(input.query, await this.analytics.sales(input.query));
  }

  @Endpoint(getTopProducts)
  async topProducts(@Input() input: InputOf<typeof getTopProducts>): Promise<TopProductsReport> {
    return topProductsView(input.query, await this.analytics.topProducts(input.query));
  }

  @Endpoint(getBasket)
  async basket(@Input() input: InputOf<typeof getBasket>): Promise<BasketReport> {
    return basketView(input.query, await this.analytics.basket(input.query));
  }

  @Endpoint(getCancellations)
  async cancellations(@Input() input: InputOf<typeof getCancellations>): Promise<CancellationsReport> {
    return cancellationsView(input.query, await this.analytics.cancellations(input.query));
  }
}
