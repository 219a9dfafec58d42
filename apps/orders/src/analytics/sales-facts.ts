/**
 * The facts sales analytics counts, derived from an order document (ADR 0051) — never from an
 * event's payload. An event only says "look at this order again"; what the order shows decides.
 * Every fact is monotone (once it holds for an order it holds forever: a placed order stays
 * placed, a sale stays in the saga's history, CANCELLED is terminal), so applying each fact of an
 * order exactly once converges, whatever the order, number and timing of its events.
 * Plain TypeScript, no framework or driver.
 */
import { Orders } from '@mw/contracts';
import { dayOf, dayPeriod, monthOf, monthPeriod } from './date-range';

/** Items sold without a category are counted here, never dropped. */
export const UNCATEGORIZED = 'uncategorized';

/** Cancellation reasons as the contract lists them; anything else is counted as OTHER. */
export const CANCEL_REASONS = Orders.OrderCancelReason.options;
export type CancelReason = (typeof CANCEL_REASONS)[number];
export type ReasonBucket = CancelReason | 'OTHER';

/**
 * - `placed`: the order exists (the denominator of the cancellation rate);
 * - `sold`: the saga reached CONFIRMED once (stock committed, money captured);
 * - `cancelled`: the order ended CANCELLED, with its reason;
 * - `sale_reversed`: it was sold and then cancelled (a customer's cancellation before delivery):
 *   the sale comes out of the figures again.
 */
export const FACTS = ['placed', 'sold', 'cancelled', 'sale_reversed'] as const;
export type Fact = (typeof FACTS)[number];

/** What analytics reads of an order document (the `orders` collection; see orders.repository.ts). */
export interface SalesOrder {
  readonly _id: string;
  readonly zone: string;
  readonly order_date: Date;
  readonly items: readonly {
    readonly product_id: string;
    readonly name: string;
    readonly category_id?: string | null;
    /** Unit price, kopecks. */
    readonly price: number;
    readonly qty: number;
  }[];
  readonly saga: {
    readonly state: string;
    readonly reason: string | null;
    readonly history: readonly { readonly to: string }[];
  };
}

/** The fields to read: the projection of an order that `factsOf` and `cellUpdates` need. */
export const SALES_ORDER_PROJECTION = {
  zone: 1,
  order_date: 1,
  items: 1,
  'saga.state': 1,
  'saga.reason': 1,
  'saga.history.to': 1,
} as const;

/** The facts that hold for the order now, in the order they become true. */
export function factsOf(order: SalesOrder): Fact[] {
  const sold = order.saga.history.some((h) => h.to === 'CONFIRMED');
  const cancelled = order.saga.state === 'CANCELLED';
  const facts: Fact[] = ['placed'];
  if (sold) facts.push('sold');
  if (cancelled) facts.push('cancelled');
  if (sold && cancelled) facts.push('sale_reversed');
  return facts;
}

/** Id of the marker that records a fact of an order as applied. */
export const markerId = (orderId: string, fact: Fact): string => `${orderId}:${fact}`;

export function reasonBucket(reason: string | null): ReasonBucket {
  return (CANCEL_REASONS as readonly string[]).includes(reason ?? '') ? (reason as CancelReason) : 'OTHER';
}

export type Table = 'days' | 'categories' | 'products';

/**
 * One counter document to upsert: `keys` are its dimensions (set when it is created), `inc` the
 * counters to add (negative for a reversed sale), `set` the product's name as last sold.
 */
export interface CellUpdate {
  readonly table: Table;
  readonly id: string;
  readonly keys: Readonly<Record<string, string>>;
  readonly inc: Readonly<Record<string, number>>;
  readonly set?: Readonly<Record<string, string>>;
}

export const dayCellId = (day: string, zone: string): string => `${day}|${zone}`;
export const categoryCellId = (day: string, zone: string, category: string): string =>
  `${day}|${zone}|${category}`;
export const productCellId = (period: string, zone: string, category: string, product: string): string =>
  `${period}|${zone}|${category}|${product}`;

const categoryOf = (item: SalesOrder['items'][number]): string =>
  item.category_id ? item.category_id.toLowerCase() : UNCATEGORIZED;

/**
 * The counter updates that applying `facts` of the order makes, merged per document (one update
 * per counter document; documents whose counters all add up to zero are left out). Days are UTC
 * days of `order_date`: a reversed sale comes out of the day it was placed on.
 */
export function cellUpdates(order: SalesOrder, facts: readonly Fact[]): CellUpdate[] {
  const day = dayOf(order.order_date);
  const zone = order.zone;
  const cells = new Map<
    string,
    {
      table: Table;
      id: string;
      keys: Record<string, string>;
      inc: Record<string, number>;
      set?: Record<string, string>;
    }
  >();
  const add = (
    table: Table,
    id: string,
    keys: Record<string, string>,
    inc: Record<string, number>,
    set?: Record<string, string>,
  ): void => {
    const key = `${table}/${id}`;
    const cell = cells.get(key) ?? { table, id, keys, inc: {} };
    for (const [k, v] of Object.entries(inc)) cell.inc[k] = (cell.inc[k] ?? 0) + v;
    if (set) cell.set = set;
    cells.set(key, cell);
  };
  const dayCell = (inc: Record<string, number>): void =>
    add('days', dayCellId(day, zone), { day, zone }, inc);
  const sale = (sign: 1 | -1): void => {
    const revenue = order.items.reduce((n, i) => n + i.price * i.qty, 0);
    const units = order.items.reduce((n, i) => n + i.qty, 0);
    dayCell({ orders: sign, revenue: sign * revenue, units: sign * units });
    const byCategory = new Map<string, { revenue: number; units: number }>();
    const byProduct = new Map<string, { category: string; name: string; revenue: number; units: number }>();
    for (const item of order.items) {
      const category = categoryOf(item);
      const c = byCategory.get(category) ?? { revenue: 0, units: 0 };
      byCategory.set(category, { revenue: c.revenue + item.price * item.qty, units: c.units + item.qty });
      const productKey = `${category}|${item.product_id.toLowerCase()}`;
      const p = byProduct.get(productKey) ?? { category, name: item.name, revenue: 0, units: 0 };
      byProduct.set(productKey, {
        ...p,
        revenue: p.revenue + item.price * item.qty,
        units: p.units + item.qty,
      });
    }
    for (const [category, c] of byCategory) {
      add(
        'categories',
        categoryCellId(day, zone, category),
        { day, zone, category_id: category },
        { orders: sign, revenue: sign * c.revenue, units: sign * c.units },
      );
    }
    for (const [productKey, p] of byProduct) {
      const product = productKey.slice(p.category.length + 1);
      for (const period of [dayPeriod(day), monthPeriod(monthOf(day))]) {
        add(
          'products',
          productCellId(period, zone, p.category, product),
          { period, zone, category_id: p.category, product_id: product },
          { orders: sign, revenue: sign * p.revenue, units: sign * p.units },
          sign > 0 ? { name: p.name } : undefined,
        );
      }
    }
  };
  for (const fact of facts) {
    switch (fact) {
      case 'placed':
        dayCell({ placed: 1 });
        break;
      case 'sold':
        sale(1);
        break;
      case 'cancelled':
        dayCell({ cancelled: 1, [`cancelled_by_reason.${reasonBucket(order.saga.reason)}`]: 1 });
        break;
      case 'sale_reversed':
        sale(-1);
        dayCell({ sales_reversed: 1 });
        break;
    }
  }
  return [...cells.values()].filter((c) => Object.values(c.inc).some((v) => v !== 0));
}

/**
 * The updates of several orders merged per counter document (group commit, ADR 0051): counters
 * summed, the last `set` kept; documents whose counters all add up to zero are left out. Applying
 * the result is the same as applying each input in turn.
 */
export function mergeCellUpdates(updates: readonly CellUpdate[]): CellUpdate[] {
  const cells = new Map<
    string,
    { table: Table; id: string; keys: Readonly<Record<string, string>>; inc: Record<string, number>; set?: Readonly<Record<string, string>> }
  >();
  for (const u of updates) {
    const key = `${u.table}/${u.id}`;
    const cell = cells.get(key) ?? { table: u.table, id: u.id, keys: u.keys, inc: {} };
    for (const [k, v] of Object.entries(u.inc)) cell.inc[k] = (cell.inc[k] ?? 0) + v;
    if (u.set) cell.set = u.set;
    cells.set(key, cell);
  }
  return [...cells.values()].filter((c) => Object.values(c.inc).some((v) => v !== 0));
}
