import {
  averageOf,
  basketFigures,
  cancellationFigures,
  CategoryCounters,
  DayCounters,
  ProductCounters,
  rateOf,
  salesFigures,
  topProducts,
} from './figures';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

describe('sales by zone × category × day', () => {
  const categories: CategoryCounters[] = [
    { day: '2026-11-02', zone: 'MSK', category_id: A, orders: 1, revenue: 500, units: 1 },
    { day: '2026-11-01', zone: 'SPB', category_id: B, orders: 2, revenue: 700, units: 3 },
    { day: '2026-11-01', zone: 'MSK', category_id: B, orders: 1, revenue: 200, units: 2 },
    { day: '2026-11-01', zone: 'MSK', category_id: A, orders: 0, revenue: 0, units: 0 }, // every sale reversed
  ];
  const days: DayCounters[] = [
    { day: '2026-11-01', zone: 'MSK', placed: 3, orders: 1, revenue: 200, units: 2 },
    { day: '2026-11-01', zone: 'SPB', placed: 2, orders: 2, revenue: 700, units: 3 },
    { day: '2026-11-02', zone: 'MSK', placed: 1, orders: 1, revenue: 500, units: 1 },
  ];

  it('lists cells with sales by day, zone, category; totals count distinct orders from the day counters', () => {
    const f = salesFigures(categories, days, null);
    expect(f.rows.map((r) => `${r.day} ${r.zone} ${r.category_id.slice(0, 1)}`)).toEqual([
      '2026-11-01 MSK b',
      '2026-11-01 SPB b',
      '2026-11-02 MSK a',
    ]);
    expect(f.totals).toEqual({ revenue: 1400, units: 6, orders: 4 });
  });

  it('with a category, totals are those of the category (orders that contained it)', () => {
    const f = salesFigures(
      categories.filter((c) => c.category_id === B),
      [],
      B,
    );
    expect(f.totals).toEqual({ revenue: 900, units: 5, orders: 3 });
  });
});

describe('top products per category', () => {
  const cell = (
    period: string,
    category_id: string,
    product_id: string,
    name: string,
    revenue: number,
    units: number,
    orders = 1,
  ): ProductCounters => ({
    period,
    zone: 'MSK',
    category_id,
    product_id,
    name,
    revenue,
    units,
    orders,
  });
  const cells = [
    cell('M:2026-11', A, 'p1', 'Phone', 10_000, 1),
    cell('D:2026-12-01', A, 'p1', 'Phone (renamed)', 10_000, 1),
    cell('M:2026-11', A, 'p2', 'Case', 3_000, 10, 4),
    cell('M:2026-11', A, 'p3', 'Cable', 3_000, 10, 2),
    cell('M:2026-11', A, 'p4', 'Returned', 0, 0, 0),
    cell('M:2026-11', B, 'p9', 'TV', 50_000, 1),
  ];

  it('ranks by revenue (ties: units, then id), sums periods, names as last sold, drops fully reversed products', () => {
    const top = topProducts(cells, 'revenue', 10);
    expect(top.map((c) => [c.category_id, c.revenue, c.units])).toEqual([
      [B, 50_000, 1],
      [A, 26_000, 22],
    ]);
    expect(top[1]!.products).toEqual([
      { rank: 1, product_id: 'p1', name: 'Phone (renamed)', revenue: 20_000, units: 2, orders: 2 },
      { rank: 2, product_id: 'p2', name: 'Case', revenue: 3_000, units: 10, orders: 4 },
      { rank: 3, product_id: 'p3', name: 'Cable', revenue: 3_000, units: 10, orders: 2 },
    ]);
  });

  it('ranks by units and keeps `limit` per category', () => {
    const top = topProducts(cells, 'units', 2);
    expect(top[1]!.products.map((p) => p.product_id)).toEqual(['p2', 'p3']);
    expect(top[0]!.products).toHaveLength(1);
  });
});

describe('average basket and rates', () => {
  it('rounds the average half up to the kopeck, null without orders', () => {
    expect(averageOf(1001, 2)).toBe(501); // 500.5
    expect(averageOf(1000, 3)).toBe(333); // 333.33
    expect(averageOf(2000, 3)).toBe(667); // 666.67
    expect(averageOf(0, 0)).toBeNull();
    expect(averageOf(999_999_999_999_99, 7)).toBe(Math.round(999_999_999_999_99 / 7));
  });

  it('basket: sold orders, revenue and average, per day with sales', () => {
    const f = basketFigures([
      { day: '2026-11-02', zone: 'MSK', orders: 1, revenue: 3000, units: 1 },
      { day: '2026-11-01', zone: 'MSK', orders: 2, revenue: 1001, units: 2 },
      { day: '2026-11-01', zone: 'SPB', orders: 0, revenue: 0, units: 0, placed: 4 },
      { day: '2026-11-03', zone: 'SPB', placed: 1 },
    ]);
    expect(f).toEqual({
      orders: 3,
      revenue: 4001,
      units: 3,
      average_basket: 1334,
      by_day: [
        { day: '2026-11-01', orders: 2, revenue: 1001, average_basket: 501 },
        { day: '2026-11-02', orders: 1, revenue: 3000, average_basket: 3000 },
      ],
    });
  });

  it('cancellations: share of the placed orders, every reason listed', () => {
    const f = cancellationFigures([
      {
        day: '2026-11-01',
        zone: 'MSK',
        placed: 5,
        cancelled: 2,
        sales_reversed: 1,
        cancelled_by_reason: { STOCK_REJECTED: 1, CANCELLED_BY_USER: 1 },
      },
      { day: '2026-11-02', zone: 'MSK', placed: 1, cancelled: 1, cancelled_by_reason: { OTHER: 1 } },
    ]);
    expect(f.placed).toBe(6);
    expect(f.cancelled).toBe(3);
    expect(f.rate).toBe(0.5);
    expect(f.sales_reversed).toBe(1);
    expect(f.by_reason).toEqual([
      { reason: 'STOCK_REJECTED', cancelled: 1, rate: 0.1667 },
      { reason: 'PAYMENT_DECLINED', cancelled: 0, rate: 0 },
      { reason: 'STOCK_DEADLINE_EXCEEDED', cancelled: 0, rate: 0 },
      { reason: 'PAYMENT_DEADLINE_EXCEEDED', cancelled: 0, rate: 0 },
      { reason: 'COMMIT_FAILED', cancelled: 0, rate: 0 },
      { reason: 'CANCELLED_BY_USER', cancelled: 1, rate: 0.1667 },
      { reason: 'CANCELLED_BY_SUPPORT', cancelled: 0, rate: 0 },
      { reason: 'OTHER', cancelled: 1, rate: 0.1667 },
    ]);
    expect(rateOf(1, 0)).toBeNull();
    expect(cancellationFigures([]).rate).toBeNull();
  });
});
