/**
 * The answers of the analytics API computed from counter documents (ADR 0051): sums, rankings,
 * averages and rates. Money stays in integer kopecks here; the view formats it. Plain TypeScript.
 */
import { CANCEL_REASONS, type ReasonBucket } from './sales-facts';

/** Counters of one (day, zone). */
export interface DayCounters {
  readonly day: string;
  readonly zone: string;
  readonly placed?: number;
  readonly orders?: number;
  readonly revenue?: number;
  readonly units?: number;
  readonly cancelled?: number;
  readonly sales_reversed?: number;
  readonly cancelled_by_reason?: Readonly<Partial<Record<ReasonBucket, number>>>;
}

/** Sales of one (day, zone, category). */
export interface CategoryCounters {
  readonly day: string;
  readonly zone: string;
  readonly category_id: string;
  readonly orders: number;
  readonly revenue: number;
  readonly units: number;
}

/** Sales of one product in one period (a day or a whole month) and zone. */
export interface ProductCounters {
  readonly period: string;
  readonly zone: string;
  readonly category_id: string;
  readonly product_id: string;
  readonly name: string;
  readonly orders: number;
  readonly revenue: number;
  readonly units: number;
}

export interface SalesTotals {
  readonly revenue: number;
  readonly units: number;
  readonly orders: number;
}

export interface SalesFigures {
  readonly totals: SalesTotals;
  /** Day, zone, category ascending; cells whose sales were all reversed are left out. */
  readonly rows: readonly CategoryCounters[];
}

const byKeys =
  <T>(...keys: ((t: T) => string)[]) =>
  (a: T, b: T): number => {
    for (const k of keys) {
      const x = k(a);
      const y = k(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };

const hasSales = (c: { orders: number; revenue: number; units: number }): boolean =>
  c.orders !== 0 || c.revenue !== 0 || c.units !== 0;

/**
 * Revenue, units and orders by zone × category × day. Totals: without a category filter, the
 * orders are distinct sold orders (from the day counters: an order with two categories is one
 * order); with one, the orders that contained that category.
 */
export function salesFigures(
  categories: readonly CategoryCounters[],
  days: readonly DayCounters[],
  categoryFilter: string | null,
): SalesFigures {
  const rows = categories
    .filter(hasSales)
    .map((c) => ({
      day: c.day,
      zone: c.zone,
      category_id: c.category_id,
      orders: c.orders,
      revenue: c.revenue,
      units: c.units,
    }))
    .sort(
      byKeys(
        (c) => c.day,
        (c) => c.zone,
        (c) => c.category_id,
      ),
    );
  const sum = (xs: readonly { orders?: number; revenue?: number; units?: number }[]): SalesTotals => ({
    revenue: xs.reduce((n, x) => n + (x.revenue ?? 0), 0),
    units: xs.reduce((n, x) => n + (x.units ?? 0), 0),
    orders: xs.reduce((n, x) => n + (x.orders ?? 0), 0),
  });
  return { totals: categoryFilter === null ? sum(days) : sum(rows), rows };
}

export type RankBy = 'revenue' | 'units';

export interface RankedProduct {
  readonly rank: number;
  readonly product_id: string;
  readonly name: string;
  readonly revenue: number;
  readonly units: number;
  readonly orders: number;
}

export interface CategoryTop {
  readonly category_id: string;
  readonly revenue: number;
  readonly units: number;
  readonly products: readonly RankedProduct[];
}

interface ProductSum {
  readonly category_id: string;
  readonly product_id: string;
  readonly name: string;
  /** Date part of the period the name was read from. */
  readonly named_at: string;
  readonly revenue: number;
  readonly units: number;
  readonly orders: number;
}

/**
 * The best `limit` products of each category over the periods read, by revenue or units (ties:
 * the other measure, then product id). Categories by revenue, highest first (ties: id).
 */
export function topProducts(cells: readonly ProductCounters[], by: RankBy, limit: number): CategoryTop[] {
  const products = new Map<string, ProductSum>();
  for (const c of cells) {
    const key = `${c.category_id}|${c.product_id}`;
    const p = products.get(key) ?? {
      category_id: c.category_id,
      product_id: c.product_id,
      name: c.name,
      named_at: '',
      revenue: 0,
      units: 0,
      orders: 0,
    };
    // the name as last sold: the name of the latest period read (a product may have been renamed)
    const at = c.period.slice(2);
    const named = at > p.named_at ? { name: c.name, named_at: at } : {};
    products.set(key, {
      ...p,
      ...named,
      revenue: p.revenue + c.revenue,
      units: p.units + c.units,
      orders: p.orders + c.orders,
    });
  }
  const other: RankBy = by === 'revenue' ? 'units' : 'revenue';
  const byCategory = new Map<string, ProductSum[]>();
  for (const p of products.values()) {
    if (!hasSales(p)) continue;
    byCategory.set(p.category_id, [...(byCategory.get(p.category_id) ?? []), p]);
  }
  const out: CategoryTop[] = [];
  for (const [category_id, ps] of byCategory) {
    const ranked = [...ps].sort(
      (a, b) => b[by] - a[by] || b[other] - a[other] || (a.product_id < b.product_id ? -1 : 1),
    );
    out.push({
      category_id,
      revenue: ps.reduce((n, p) => n + p.revenue, 0),
      units: ps.reduce((n, p) => n + p.units, 0),
      products: ranked
        .slice(0, limit)
        .map((p, i) => ({
          rank: i + 1,
          product_id: p.product_id,
          name: p.name,
          revenue: p.revenue,
          units: p.units,
          orders: p.orders,
        })),
    });
  }
  return out.sort((a, b) => b.revenue - a.revenue || (a.category_id < b.category_id ? -1 : 1));
}

/** Kopecks per order, rounded half up; null without orders. */
export function averageOf(revenue: number, orders: number): number | null {
  if (orders <= 0) return null;
  return Math.floor((2 * revenue + orders) / (2 * orders));
}

export interface BasketFigures {
  readonly orders: number;
  readonly revenue: number;
  readonly units: number;
  readonly average_basket: number | null;
  readonly by_day: readonly { day: string; orders: number; revenue: number; average_basket: number | null }[];
}

/** Sold orders (net of reversed sales), their revenue and the average basket, in total and per day. */
export function basketFigures(days: readonly DayCounters[]): BasketFigures {
  const perDay = new Map<string, { orders: number; revenue: number }>();
  let orders = 0;
  let revenue = 0;
  let units = 0;
  for (const d of days) {
    const o = d.orders ?? 0;
    const r = d.revenue ?? 0;
    orders += o;
    revenue += r;
    units += d.units ?? 0;
    const p = perDay.get(d.day) ?? { orders: 0, revenue: 0 };
    perDay.set(d.day, { orders: p.orders + o, revenue: p.revenue + r });
  }
  const by_day = [...perDay]
    .filter(([, p]) => p.orders !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, p]) => ({
      day,
      orders: p.orders,
      revenue: p.revenue,
      average_basket: averageOf(p.revenue, p.orders),
    }));
  return { orders, revenue, units, average_basket: averageOf(revenue, orders), by_day };
}

/** A share rounded to 4 decimals; null when nothing was placed. */
export function rateOf(part: number, whole: number): number | null {
  if (whole <= 0) return null;
  return Math.round((part / whole) * 10_000) / 10_000;
}

export interface CancellationFigures {
  readonly placed: number;
  readonly cancelled: number;
  readonly rate: number | null;
  readonly sales_reversed: number;
  /** Every reason of the contract (and OTHER), in the contract's order, zeros included. */
  readonly by_reason: readonly { reason: ReasonBucket; cancelled: number; rate: number | null }[];
}

/** Of the orders placed on the days read, how many ended cancelled, and why. */
export function cancellationFigures(days: readonly DayCounters[]): CancellationFigures {
  const sum = (f: (d: DayCounters) => number | undefined): number =>
    days.reduce((n, d) => n + (f(d) ?? 0), 0);
  const placed = sum((d) => d.placed);
  const cancelled = sum((d) => d.cancelled);
  const reasons: ReasonBucket[] = [...CANCEL_REASONS, 'OTHER'];
  return {
    placed,
    cancelled,
    rate: rateOf(cancelled, placed),
    sales_reversed: sum((d) => d.sales_reversed),
    by_reason: reasons.map((reason) => {
      const n = sum((d) => d.cancelled_by_reason?.[reason]);
      return { reason, cancelled: n, rate: rateOf(n, placed) };
    }),
  };
}
