import { z } from 'zod';
import { ZoneCode } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import {
  BasketReport,
  CancellationsReport,
  CategoryId,
  Day,
  SalesReport,
  TopProductsReport,
} from './analytics-view';
import { MAX_RANGE_DAYS, rangeProblems } from './date-range';

/*
 * The analytics API (ADR 0051): operators only — revenue by zone, category and product is
 * commercial information nobody needs to answer a customer. Figures come from the read model on a
 * secondary (at most ANALYTICS_MAX_STALENESS_SECONDS behind the primary) that the analytics
 * consumer keeps a few seconds behind the orders.
 */

const rangeNote =
  `\`from\` and \`to\` are UTC days, both included, at most ${MAX_RANGE_DAYS} days apart (\`to\` before \`from\` or a longer ` +
  'range: 422 naming `query.to`); a day is the UTC day of the order_date. `zone` is one served zone (a well-formed zone ' +
  'that is not served: 422 `ORDERS.UNKNOWN_ZONE`), every zone when absent.';

const range = {
  from: Day.meta({ description: 'First day (UTC), included', example: '2026-11-01' }),
  to: Day.meta({ description: 'Last day (UTC), included', example: '2026-11-30' }),
  zone: ZoneCode.optional().meta({ description: 'A served zone; every zone when absent', example: 'MSK' }),
};

/**
 * `to` not before `from`, the span bounded: rules the document cannot state (422, ADR 0007). Only
 * between two real dates: a malformed one is already a 400 naming its own field.
 */
const checkRange = (q: { from: string; to: string }, ctx: z.RefinementCtx): void => {
  if (!Day.safeParse(q.from).success || !Day.safeParse(q.to).success) return;
  for (const p of rangeProblems(q.from, q.to))
    ctx.addIssue({ code: 'custom', path: [p.field], message: p.message });
};

const category = CategoryId.optional();

export const salesQuery = z
  .strictObject({ ...range, category_id: category.meta({ description: 'Only this category' }) })
  .superRefine(checkRange);
export const topProductsQuery = z
  .strictObject({
    ...range,
    category_id: category.meta({ description: 'Only this category; every category when absent' }),
    by: z
      .enum(['revenue', 'units'])
      .default('revenue')
      .meta({ description: 'Rank by revenue or by units sold' }),
    limit: z.coerce.number().int().min(1).max(50).default(10).meta({ description: 'Products per category' }),
  })
  .superRefine(checkRange);
export const rangeQuery = z.strictObject(range).superRefine(checkRange);

const CAT_A = '5eed000000000000000000a3';
const CAT_B = '5eed000000000000000000b1';

export const salesExample: SalesReport = {
  from: '2026-11-01',
  to: '2026-11-02',
  zone: 'MSK',
  category_id: null,
  currency: 'RUB',
  totals: { revenue: '27739.50', units: 7, orders: 4 },
  rows: [
    { day: '2026-11-01', zone: 'MSK', category_id: CAT_A, revenue: '7579.80', units: 2, orders: 1 },
    { day: '2026-11-01', zone: 'MSK', category_id: CAT_B, revenue: '12999.90', units: 1, orders: 1 },
    { day: '2026-11-02', zone: 'MSK', category_id: CAT_A, revenue: '3789.90', units: 1, orders: 1 },
    { day: '2026-11-02', zone: 'MSK', category_id: 'uncategorized', revenue: '3369.90', units: 3, orders: 1 },
  ],
};

export const topProductsExample: TopProductsReport = {
  from: '2026-11-01',
  to: '2026-11-30',
  zone: 'MSK',
  category_id: CAT_A,
  by: 'revenue',
  limit: 2,
  currency: 'RUB',
  categories: [
    {
      category_id: CAT_A,
      revenue: '49268.70',
      units: 13,
      products: [
        {
          rank: 1,
          product_id: '5eed00000000000000000405',
          name: 'Huawei Plus черный',
          revenue: '37899.00',
          units: 10,
          orders: 6,
        },
        {
          rank: 2,
          product_id: '5eed00000000000000000398',
          name: 'Xiaomi Lite синий',
          revenue: '11369.70',
          units: 3,
          orders: 3,
        },
      ],
    },
  ],
};

export const basketExample: BasketReport = {
  from: '2026-11-01',
  to: '2026-11-02',
  zone: null,
  currency: 'RUB',
  orders: 3,
  revenue: '24369.60',
  units: 6,
  average_basket: '8123.20',
  by_day: [
    { day: '2026-11-01', orders: 2, revenue: '20579.70', average_basket: '10289.85' },
    { day: '2026-11-02', orders: 1, revenue: '3789.90', average_basket: '3789.90' },
  ],
};

export const cancellationsExample: CancellationsReport = {
  from: '2026-11-01',
  to: '2026-11-30',
  zone: 'SPB',
  placed: 40,
  cancelled: 5,
  rate: 0.125,
  sales_reversed: 1,
  by_reason: [
    { reason: 'STOCK_REJECTED', cancelled: 2, rate: 0.05 },
    { reason: 'PAYMENT_DECLINED', cancelled: 1, rate: 0.025 },
    { reason: 'STOCK_DEADLINE_EXCEEDED', cancelled: 0, rate: 0 },
    { reason: 'PAYMENT_DEADLINE_EXCEEDED', cancelled: 1, rate: 0.025 },
    { reason: 'COMMIT_FAILED', cancelled: 0, rate: 0 },
    { reason: 'CANCELLED_BY_USER', cancelled: 1, rate: 0.025 },
    { reason: 'CANCELLED_BY_SUPPORT', cancelled: 0, rate: 0 },
    { reason: 'OTHER', cancelled: 0, rate: 0 },
  ],
};

const operators = access.roles('operator');

export const getSales = endpoint({
  operationId: 'getSalesAnalytics',
  method: 'GET',
  path: '/analytics/sales',
  tag: 'analytics',
  summary: 'Revenue, units and orders by zone × category × day',
  description:
    'Net sales: an order counts from its confirmation, and comes out again when the customer cancels it after ' +
    `confirmation. Items without a category are counted under \`uncategorized\`. ${rangeNote} Operators only.`,
  access: operators,
  rateLimit: 'reads',
  query: salesQuery,
  errors: [422],
  response: {
    status: 200,
    description: 'Sales per cell and in total',
    schema: SalesReport,
    example: salesExample,
  },
});

export const getTopProducts = endpoint({
  operationId: 'getTopProductsAnalytics',
  method: 'GET',
  path: '/analytics/top-products',
  tag: 'analytics',
  summary: 'Best-selling products per category',
  description: `Ranked by revenue (or units), net of reversed sales. ${rangeNote} Operators only.`,
  access: operators,
  rateLimit: 'reads',
  query: topProductsQuery,
  errors: [422],
  response: {
    status: 200,
    description: 'The best products of each category',
    schema: TopProductsReport,
    example: topProductsExample,
  },
});

export const getBasket = endpoint({
  operationId: 'getBasketAnalytics',
  method: 'GET',
  path: '/analytics/basket',
  tag: 'analytics',
  summary: 'Sold orders, revenue and the average basket',
  description: `Average basket = revenue / sold orders, rounded half up to the kopeck. ${rangeNote} Operators only.`,
  access: operators,
  rateLimit: 'reads',
  query: rangeQuery,
  errors: [422],
  response: {
    status: 200,
    description: 'Orders, revenue and average basket, in total and per day',
    schema: BasketReport,
    example: basketExample,
  },
});

export const getCancellations = endpoint({
  operationId: 'getCancellationAnalytics',
  method: 'GET',
  path: '/analytics/cancellations',
  tag: 'analytics',
  summary: 'Cancellation rate by reason',
  description:
    'Of the orders placed on the days asked for (rejected checkouts are no orders), the share that ended cancelled, ' +
    'by reason (CANCELLED_BY_USER: the customer cancelled, before or after confirmation; CANCELLED_BY_SUPPORT: support ' +
    'cancelled for the customer); `sales_reversed` counts the ' +
    `cancellations after confirmation, whose sale came out of the figures. ${rangeNote} Operators only.`,
  access: operators,
  rateLimit: 'reads',
  query: rangeQuery,
  errors: [422],
  response: {
    status: 200,
    description: 'Placed, cancelled, rate, by reason',
    schema: CancellationsReport,
    example: cancellationsExample,
  },
});
