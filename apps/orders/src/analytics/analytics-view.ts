import { z } from 'zod';
import { ObjectIdHex, ZoneCode } from '@mw/contracts';
import { formatMoney } from '@mw/platform';
import type { RangeQuery } from './analytics.service';
import type { BasketFigures, CancellationFigures, CategoryTop, RankBy, SalesFigures } from './figures';
import { CANCEL_REASONS, UNCATEGORIZED } from './sales-facts';

/*
 * The JSON the analytics API answers with, as zod schemas (the OpenAPI document is built from
 * them and the view functions are typed by them). Money as decimal strings, counts as integers.
 */

export const Day = z.iso
  .date()
  .meta({ description: 'UTC day (YYYY-MM-DD) of the order_date of orders', example: '2026-11-01' });
const Money = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .meta({ description: 'Decimal roubles, two places', example: '7579.80' });
const Count = z.number().int().nonnegative();
const Rate = z
  .number()
  .min(0)
  .max(1)
  .nullable()
  .meta({
    description: 'Share of the orders placed, 4 decimals; null when none were placed',
    example: 0.125,
  });
export const CategoryId = z
  .string()
  .regex(/^(?:[0-9a-fA-F]{24}|uncategorized)$/)
  .meta({
    description: `A category id, or \`${UNCATEGORIZED}\` for items sold without one`,
    example: '5eed000000000000000000a3',
  });
const ZoneOrAll = ZoneCode.nullable().meta({ description: 'The zone asked for; null: every served zone' });
const Range = { from: Day, to: Day, zone: ZoneOrAll };

export const SalesReport = z
  .object({
    ...Range,
    category_id: CategoryId.nullable(),
    currency: z.literal('RUB'),
    totals: z.object({
      revenue: Money,
      units: Count,
      orders: Count.meta({
        description:
          'Sold orders (with a category: orders that contained it); a reversed sale is not counted',
      }),
    }),
    rows: z
      .array(
        z.object({
          day: Day,
          zone: ZoneCode,
          category_id: CategoryId,
          revenue: Money,
          units: Count,
          orders: Count,
        }),
      )
      .meta({ description: 'Day, zone, category ascending; only cells with sales left after reversals' }),
  })
  .meta({
    description:
      'Net sales (confirmed orders minus sales reversed by a later cancellation) by zone × category × day',
  });
export type SalesReport = z.output<typeof SalesReport>;

const RankByEnum = z.enum(['revenue', 'units'] as const satisfies readonly RankBy[]);

export const TopProductsReport = z
  .object({
    ...Range,
    category_id: CategoryId.nullable(),
    by: RankByEnum,
    limit: z.number().int().positive(),
    currency: z.literal('RUB'),
    categories: z
      .array(
        z.object({
          category_id: CategoryId,
          revenue: Money,
          units: Count,
          products: z.array(
            z.object({
              rank: z.number().int().positive(),
              product_id: ObjectIdHex,
              name: z.string().meta({ description: 'The name the product was last sold under' }),
              revenue: Money,
              units: Count,
              orders: Count,
            }),
          ),
        }),
      )
      .meta({
        description: 'Categories by revenue, highest first; in each, the best `limit` products by `by`',
      }),
  })
  .meta({ description: 'Best-selling products per category (net of reversed sales)' });
export type TopProductsReport = z.output<typeof TopProductsReport>;

export const BasketReport = z
  .object({
    ...Range,
    currency: z.literal('RUB'),
    orders: Count.meta({ description: 'Sold orders, net of reversed sales' }),
    revenue: Money,
    units: Count,
    average_basket: Money.nullable().meta({
      description: 'Revenue per sold order, rounded half up to the kopeck; null without orders',
    }),
    by_day: z
      .array(z.object({ day: Day, orders: Count, revenue: Money, average_basket: Money.nullable() }))
      .meta({ description: 'Days with sold orders, ascending' }),
  })
  .meta({ description: 'Sold orders, revenue and the average basket' });
export type BasketReport = z.output<typeof BasketReport>;

const ReasonEnum = z.enum([...CANCEL_REASONS, 'OTHER']);

export const CancellationsReport = z
  .object({
    ...Range,
    placed: Count.meta({ description: 'Orders placed on the days asked for' }),
    cancelled: Count.meta({
      description: 'Of those, the ones that ended cancelled (before or after confirmation)',
    }),
    rate: Rate,
    sales_reversed: Count.meta({ description: 'Cancelled after confirmation: their sale was reversed' }),
    by_reason: z
      .array(z.object({ reason: ReasonEnum, cancelled: Count, rate: Rate }))
      .meta({ description: 'Every reason, in the order of the contract, zeros included' }),
  })
  .meta({ description: 'Cancellation rate of the orders placed in the range, by reason' });
export type CancellationsReport = z.output<typeof CancellationsReport>;

const rangeOf = (q: RangeQuery) => ({ from: q.from, to: q.to, zone: q.zone ?? null });

export function salesView(
  q: RangeQuery & { category_id?: string | undefined },
  f: SalesFigures,
): SalesReport {
  return {
    ...rangeOf(q),
    category_id: q.category_id?.toLowerCase() ?? null,
    currency: 'RUB',
    totals: { revenue: formatMoney(f.totals.revenue), units: f.totals.units, orders: f.totals.orders },
    rows: f.rows.map((r) => ({
      day: r.day,
      zone: r.zone,
      category_id: r.category_id,
      revenue: formatMoney(r.revenue),
      units: r.units,
      orders: r.orders,
    })),
  };
}

export function topProductsView(
  q: RangeQuery & { category_id?: string | undefined; by: RankBy; limit: number },
  top: readonly CategoryTop[],
): TopProductsReport {
  return {
    ...rangeOf(q),
    category_id: q.category_id?.toLowerCase() ?? null,
    by: q.by,
    limit: q.limit,
    currency: 'RUB',
    categories: top.map((c) => ({
      category_id: c.category_id,
      revenue: formatMoney(c.revenue),
      units: c.units,
      products: c.products.map((p) => ({
        rank: p.rank,
        product_id: p.product_id,
        name: p.name,
        revenue: formatMoney(p.revenue),
        units: p.units,
        orders: p.orders,
      })),
    })),
  };
}

const moneyOrNull = (minor: number | null): string | null => (minor === null ? null : formatMoney(minor));

export function basketView(q: RangeQuery, f: BasketFigures): BasketReport {
  return {
    ...rangeOf(q),
    currency: 'RUB',
    orders: f.orders,
    revenue: formatMoney(f.revenue),
    units: f.units,
    average_basket: moneyOrNull(f.average_basket),
    by_day: f.by_day.map((d) => ({
      day: d.day,
      orders: d.orders,
      revenue: formatMoney(d.revenue),
      average_basket: moneyOrNull(d.average_basket),
    })),
  };
}

export function cancellationsView(q: RangeQuery, f: CancellationFigures): CancellationsReport {
  return {
    ...rangeOf(q),
    placed: f.placed,
    cancelled: f.cancelled,
    rate: f.rate,
    sales_reversed: f.sales_reversed,
    by_reason: [...f.by_reason],
  };
}
