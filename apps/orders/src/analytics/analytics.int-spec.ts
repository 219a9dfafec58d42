import { ReadPreference } from 'mongodb';
import { OutgoingMessage } from '@mw/contracts';
import { MemberProfiler, profileMembers, unindexedShapes } from '@mw/testing';
import { ANALYTICS_COLLECTIONS, cellFilters } from './analytics.repository';
import { periodsCovering } from './date-range';
import { historicOrder, HistoricOrderDoc } from './demo/historic-orders';
import { AnalyticsHarness, equals } from './test/analytics-harness';
import {
  CAT_PHONES,
  CAT_TV,
  CABLE,
  D1,
  D3,
  D4,
  KNOWN_ORDERS,
  O7_CANCELLED,
  PHONE1,
  PHONE2,
  TV,
} from './test/known-orders';

/*
 * Sales analytics end to end on the real replica set and Kafka: known orders written as the service
 * writes them (events in the outbox, published by the service's own relay), the analytics consumer
 * in its own group builds the read model, operators read it over HTTP with real tokens. Every figure
 * below is computed by hand from test/known-orders.ts.
 */

const ALL = `from=${D1}&to=${D4}`; // 2026-09-30 … 2026-11-01: October is a whole month inside
const reasons = (counts: Partial<Record<string, number>>, placed: number) =>
  [
    'STOCK_REJECTED',
    'PAYMENT_DECLINED',
    'STOCK_DEADLINE_EXCEEDED',
    'PAYMENT_DEADLINE_EXCEEDED',
    'COMMIT_FAILED',
    'CANCELLED_BY_USER',
    'CANCELLED_BY_SUPPORT',
    'OTHER',
  ].map((reason) => {
    const n = counts[reason] ?? 0;
    return { reason, cancelled: n, rate: placed === 0 ? null : Math.round((n / placed) * 10_000) / 10_000 };
  });

/** The figures once o7 was cancelled after confirmation. */
const final = {
  sales: {
    from: D1,
    to: D4,
    zone: null,
    category_id: null,
    currency: 'RUB',
    totals: { revenue: '421500.00', units: 11, orders: 5 },
    rows: [
      { day: '2026-09-30', zone: 'MSK', category_id: CAT_PHONES, revenue: '50000.00', units: 1, orders: 1 },
      {
        day: '2026-09-30',
        zone: 'MSK',
        category_id: 'uncategorized',
        revenue: '1000.00',
        units: 2,
        orders: 1,
      },
      { day: '2026-10-01', zone: 'MSK', category_id: CAT_PHONES, revenue: '110000.00', units: 3, orders: 2 },
      { day: '2026-10-01', zone: 'MSK', category_id: CAT_TV, revenue: '80000.00', units: 1, orders: 1 },
      { day: '2026-10-15', zone: 'SPB', category_id: CAT_PHONES, revenue: '100000.00', units: 2, orders: 1 },
      {
        day: '2026-10-15',
        zone: 'SPB',
        category_id: 'uncategorized',
        revenue: '500.00',
        units: 1,
        orders: 1,
      },
      { day: '2026-11-01', zone: 'EKB', category_id: CAT_TV, revenue: '80000.00', units: 1, orders: 1 },
    ],
  },
  salesMsk: {
    from: D1,
    to: D4,
    zone: 'MSK',
    category_id: null,
    currency: 'RUB',
    totals: { revenue: '241000.00', units: 7, orders: 3 },
    rows: [
      { day: '2026-09-30', zone: 'MSK', category_id: CAT_PHONES, revenue: '50000.00', units: 1, orders: 1 },
      {
        day: '2026-09-30',
        zone: 'MSK',
        category_id: 'uncategorized',
        revenue: '1000.00',
        units: 2,
        orders: 1,
      },
      { day: '2026-10-01', zone: 'MSK', category_id: CAT_PHONES, revenue: '110000.00', units: 3, orders: 2 },
      { day: '2026-10-01', zone: 'MSK', category_id: CAT_TV, revenue: '80000.00', units: 1, orders: 1 },
    ],
  },
  salesPhones: {
    from: D1,
    to: D4,
    zone: null,
    category_id: CAT_PHONES,
    currency: 'RUB',
    totals: { revenue: '260000.00', units: 6, orders: 4 },
    rows: [
      { day: '2026-09-30', zone: 'MSK', category_id: CAT_PHONES, revenue: '50000.00', units: 1, orders: 1 },
      { day: '2026-10-01', zone: 'MSK', category_id: CAT_PHONES, revenue: '110000.00', units: 3, orders: 2 },
      { day: '2026-10-15', zone: 'SPB', category_id: CAT_PHONES, revenue: '100000.00', units: 2, orders: 1 },
    ],
  },
  salesUncategorized: {
    from: D1,
    to: D4,
    zone: null,
    category_id: 'uncategorized',
    currency: 'RUB',
    totals: { revenue: '1500.00', units: 3, orders: 2 },
    rows: [
      {
        day: '2026-09-30',
        zone: 'MSK',
        category_id: 'uncategorized',
        revenue: '1000.00',
        units: 2,
        orders: 1,
      },
      {
        day: '2026-10-15',
        zone: 'SPB',
        category_id: 'uncategorized',
        revenue: '500.00',
        units: 1,
        orders: 1,
      },
    ],
  },
  // one day: o7 (MSK) was sold and reversed, o8 (SPB) sold; totals are distinct orders of the day
  salesD3: {
    from: D3,
    to: D3,
    zone: null,
    category_id: null,
    currency: 'RUB',
    totals: { revenue: '100500.00', units: 3, orders: 1 },
    rows: [
      { day: '2026-10-15', zone: 'SPB', category_id: CAT_PHONES, revenue: '100000.00', units: 2, orders: 1 },
      {
        day: '2026-10-15',
        zone: 'SPB',
        category_id: 'uncategorized',
        revenue: '500.00',
        units: 1,
        orders: 1,
      },
    ],
  },
  top: {
    from: D1,
    to: D4,
    zone: null,
    category_id: null,
    by: 'revenue',
    limit: 10,
    currency: 'RUB',
    categories: [
      {
        category_id: CAT_PHONES,
        revenue: '260000.00',
        units: 6,
        products: [
          { rank: 1, product_id: PHONE1, name: 'Смартфон Alpha', revenue: '200000.00', units: 4, orders: 3 },
          { rank: 2, product_id: PHONE2, name: 'Смартфон Beta', revenue: '60000.00', units: 2, orders: 1 },
        ],
      },
      {
        category_id: CAT_TV,
        revenue: '160000.00',
        units: 2,
        products: [
          { rank: 1, product_id: TV, name: 'Телевизор 55"', revenue: '160000.00', units: 2, orders: 2 },
        ],
      },
      {
        category_id: 'uncategorized',
        revenue: '1500.00',
        units: 3,
        products: [
          { rank: 1, product_id: CABLE, name: 'Кабель USB-C', revenue: '1500.00', units: 3, orders: 2 },
        ],
      },
    ],
  },
  // MSK phones by units: a tie at 2 units, broken by revenue; one product asked for
  topMskPhonesByUnits: {
    from: D1,
    to: D4,
    zone: 'MSK',
    category_id: CAT_PHONES,
    by: 'units',
    limit: 1,
    currency: 'RUB',
    categories: [
      {
        category_id: CAT_PHONES,
        revenue: '160000.00',
        units: 4,
        products: [
          { rank: 1, product_id: PHONE1, name: 'Смартфон Alpha', revenue: '100000.00', units: 2, orders: 2 },
        ],
      },
    ],
  },
  // October without its first day: day cells only; o7's reversed TV is gone
  topOctoberDays: {
    from: '2026-10-02',
    to: '2026-10-31',
    zone: null,
    category_id: null,
    by: 'revenue',
    limit: 10,
    currency: 'RUB',
    categories: [
      {
        category_id: CAT_PHONES,
        revenue: '100000.00',
        units: 2,
        products: [
          { rank: 1, product_id: PHONE1, name: 'Смартфон Alpha', revenue: '100000.00', units: 2, orders: 1 },
        ],
      },
      {
        category_id: 'uncategorized',
        revenue: '500.00',
        units: 1,
        products: [
          { rank: 1, product_id: CABLE, name: 'Кабель USB-C', revenue: '500.00', units: 1, orders: 1 },
        ],
      },
    ],
  },
  basket: {
    from: D1,
    to: D4,
    zone: null,
    currency: 'RUB',
    orders: 5,
    revenue: '421500.00',
    units: 11,
    average_basket: '84300.00',
    by_day: [
      { day: '2026-09-30', orders: 1, revenue: '51000.00', average_basket: '51000.00' },
      { day: '2026-10-01', orders: 2, revenue: '190000.00', average_basket: '95000.00' },
      { day: '2026-10-15', orders: 1, revenue: '100500.00', average_basket: '100500.00' },
      { day: '2026-11-01', orders: 1, revenue: '80000.00', average_basket: '80000.00' },
    ],
  },
  // 241000.00 / 3 = 80333.333… → 80333.33
  basketMsk: {
    from: D1,
    to: D4,
    zone: 'MSK',
    currency: 'RUB',
    orders: 3,
    revenue: '241000.00',
    units: 7,
    average_basket: '80333.33',
    by_day: [
      { day: '2026-09-30', orders: 1, revenue: '51000.00', average_basket: '51000.00' },
      { day: '2026-10-01', orders: 2, revenue: '190000.00', average_basket: '95000.00' },
    ],
  },
  basketEmpty: {
    from: '2026-08-01',
    to: '2026-08-31',
    zone: null,
    currency: 'RUB',
    orders: 0,
    revenue: '0.00',
    units: 0,
    average_basket: null,
    by_day: [],
  },
  cancellations: {
    from: D1,
    to: D4,
    zone: null,
    placed: 12,
    cancelled: 6,
    rate: 0.5,
    // o7 (its customer), and o11: confirmed, then its sale found no hold (COMMIT_FAILED, ADR 0015 §3)
    sales_reversed: 2,
    by_reason: reasons(
      {
        STOCK_REJECTED: 1,
        PAYMENT_DECLINED: 1,
        STOCK_DEADLINE_EXCEEDED: 1,
        PAYMENT_DEADLINE_EXCEEDED: 1,
        COMMIT_FAILED: 1,
        CANCELLED_BY_USER: 1,
      },
      12,
    ),
  },
  cancellationsSpb: {
    from: D1,
    to: D4,
    zone: 'SPB',
    placed: 4,
    cancelled: 3,
    rate: 0.75,
    sales_reversed: 0,
    by_reason: reasons({ STOCK_REJECTED: 1, PAYMENT_DECLINED: 1, PAYMENT_DEADLINE_EXCEEDED: 1 }, 4),
  },
  // o9 completed, o10 still waiting for its payment
  cancellationsEkbD4: {
    from: D4,
    to: D4,
    zone: 'EKB',
    placed: 2,
    cancelled: 0,
    rate: 0,
    sales_reversed: 0,
    by_reason: reasons({}, 2),
  },
  cancellationsEmpty: {
    from: '2026-08-01',
    to: '2026-08-31',
    zone: null,
    placed: 0,
    cancelled: 0,
    rate: null,
    sales_reversed: 0,
    by_reason: reasons({}, 0),
  },
};

const paths: Record<keyof typeof final, string> = {
  sales: `/analytics/sales?${ALL}`,
  salesMsk: `/analytics/sales?${ALL}&zone=MSK`,
  salesPhones: `/analytics/sales?${ALL}&category_id=${CAT_PHONES.toUpperCase()}`,
  salesUncategorized: `/analytics/sales?${ALL}&category_id=uncategorized`,
  salesD3: `/analytics/sales?from=${D3}&to=${D3}`,
  top: `/analytics/top-products?${ALL}`,
  topMskPhonesByUnits: `/analytics/top-products?${ALL}&zone=MSK&category_id=${CAT_PHONES}&by=units&limit=1`,
  topOctoberDays: '/analytics/top-products?from=2026-10-02&to=2026-10-31',
  basket: `/analytics/basket?${ALL}`,
  basketMsk: `/analytics/basket?${ALL}&zone=MSK`,
  basketEmpty: '/analytics/basket?from=2026-08-01&to=2026-08-31',
  cancellations: `/analytics/cancellations?${ALL}`,
  cancellationsSpb: `/analytics/cancellations?${ALL}&zone=SPB`,
  cancellationsEkbD4: `/analytics/cancellations?from=${D4}&to=${D4}&zone=EKB`,
  cancellationsEmpty: '/analytics/cancellations?from=2026-08-01&to=2026-08-31',
};

/**
 * Facts of the known orders once o7 is cancelled: 2 each, o7 and o11 4 (placed, sold, cancelled,
 * sale reversed — o11 was confirmed before its sale failed), o10 1 (placed).
 */
const FINAL_MARKERS = 9 * 2 + 4 + 4 + 1;

describe('sales analytics on the real replica set and Kafka', () => {
  // the service's pollers slowed down: the primary's profiler (a 1 MB capped collection) keeps the test's own operations
  const h = new AnalyticsHarness({
    OUTBOX_POLL_MS: '1000',
    PAYMENT_POLL_MS: '5000',
    SAGA_SWEEP_INTERVAL_MS: '5000',
  });
  let profiler: MemberProfiler;
  const docs = KNOWN_ORDERS.map((s) => historicOrder(s, h.config.ORDERS_EVENTS_TOPIC));
  const o7 = historicOrder(O7_CANCELLED, h.config.ORDERS_EVENTS_TOPIC);
  const o7Cancelled = o7.messages.filter((m) => m.envelope.type === 'OrderCancelled');

  /** Every endpoint's answer equals its hand-computed figures (the reads come from a secondary: a few looks allowed). */
  const expectAll = async (): Promise<void> => {
    const names = Object.keys(final) as (keyof typeof final)[];
    const answers = async () =>
      Object.fromEntries(
        await Promise.all(names.map(async (n) => [n, (await h.get(paths[n])).body] as const)),
      );
    for (let i = 0; i < 10; i++) {
      if (equals(await answers(), final)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await answers()).toEqual(final);
  };

  beforeAll(async () => {
    profiler = await profileMembers(h.config.MONGO_URL, h.config.MONGO_DB);
    await h.start();
    await h.insert(docs.map((d) => d.doc));
  }, 180_000);
  afterAll(async () => {
    await profiler?.stop();
    await h.stop();
  });

  it('counts the known orders published by the relay — o7 still confirmed, so still sold', async () => {
    await h.drained();
    const expected = {
      from: D3,
      to: D3,
      zone: 'MSK',
      category_id: null,
      currency: 'RUB',
      totals: { revenue: '130000.00', units: 2, orders: 1 },
      rows: [
        { day: '2026-10-15', zone: 'MSK', category_id: CAT_PHONES, revenue: '50000.00', units: 1, orders: 1 },
        { day: '2026-10-15', zone: 'MSK', category_id: CAT_TV, revenue: '80000.00', units: 1, orders: 1 },
      ],
    };
    expect(await h.settled(`/analytics/sales?from=${D3}&to=${D3}&zone=MSK`, expected)).toEqual(expected);
    const cancellations = {
      ...final.cancellations,
      cancelled: 5,
      rate: 0.4167,
      sales_reversed: 1, // o11
      by_reason: reasons(
        {
          STOCK_REJECTED: 1,
          PAYMENT_DECLINED: 1,
          STOCK_DEADLINE_EXCEEDED: 1,
          PAYMENT_DEADLINE_EXCEEDED: 1,
          COMMIT_FAILED: 1,
        },
        12,
      ),
    };
    expect(await h.settled(paths.cancellations, cancellations)).toEqual(cancellations);
    expect(await h.markers()).toBe(FINAL_MARKERS - 2);
  });

  it('a customer cancels o7 after confirmation: its sale comes out of every figure, exactly', async () => {
    // the saga's transition, as the service writes it: new state and its OrderCancelled in the outbox
    const { _id, ...rest } = o7.doc;
    await h.db
      .collection<HistoricOrderDoc>('orders')
      .replaceOne(
        { _id },
        { ...rest, _outbox: o7.doc._outbox!.filter((e) => e.id === o7Cancelled[0]!.envelope.id) },
      );
    await h.drained();
    await expectAll();
    expect(await h.markers()).toBe(FINAL_MARKERS);
  });

  it('every event delivered twice more, newest first and interleaved, changes nothing', async () => {
    const all: OutgoingMessage[] = [...docs.flatMap((d) => d.messages), ...o7Cancelled];
    await h.publish([
      ...[...all].reverse(),
      ...all.filter((_, i) => i % 2 === 1),
      ...all.filter((_, i) => i % 2 === 0),
    ]);
    await h.drained();
    await expectAll();
    expect(await h.markers()).toBe(FINAL_MARKERS);
  });

  it('operators only: support, customers and anonymous callers are refused', async () => {
    expect((await h.get(paths.sales, 'otto')).status).toBe(200);
    for (const who of ['sue', 'alice', 'stan'] as const) {
      const r = await h.get<{ code: string }>(paths.sales, who);
      expect([who, r.status, r.body.code]).toEqual([who, 403, 'AUTH.FORBIDDEN']);
    }
    expect((await h.get(paths.basket, null)).status).toBe(401);
  });

  it('refuses bad ranges, dates, zones and fields, naming the field', async () => {
    const problem = async (path: string) => {
      const r = await h.get<{ code: string; errors: { field: string }[] }>(path);
      return [r.status, r.body.code, r.body.errors.map((e) => e.field)];
    };
    expect(await problem('/analytics/sales?from=2026-11-02&to=2026-11-01')).toEqual([
      422,
      'COMMON.RULE_VIOLATED',
      ['query.to'],
    ]);
    expect(await problem('/analytics/basket?from=2025-01-01&to=2026-01-02')).toEqual([
      422,
      'COMMON.RULE_VIOLATED',
      ['query.to'],
    ]);
    expect(await problem('/analytics/cancellations?from=2026-02-30&to=2026-03-01')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query.from'],
    ]);
    expect(await problem('/analytics/sales?from=01.11.2026&to=2026-11-30')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query.from'],
    ]);
    expect(await problem('/analytics/sales?from=2026-11-01')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query.to'],
    ]);
    expect(await problem('/analytics/sales?from=2026-11-01&to=2026-11-30&zone=NSK')).toEqual([
      422,
      'ORDERS.UNKNOWN_ZONE',
      ['query.zone'],
    ]);
    expect(await problem('/analytics/sales?from=2026-11-01&to=2026-11-30&zone=msk')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query.zone'],
    ]);
    expect(await problem('/analytics/top-products?from=2026-11-01&to=2026-11-30&category_id=phones')).toEqual(
      [400, 'COMMON.VALIDATION_FAILED', ['query.category_id']],
    );
    expect(await problem('/analytics/top-products?from=2026-11-01&to=2026-11-30&limit=0')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query.limit'],
    ]);
    expect(await problem('/analytics/basket?from=2026-11-01&to=2026-11-30&user_id=x')).toEqual([
      400,
      'COMMON.VALIDATION_FAILED',
      ['query'],
    ]);
  });

  it('reads counter documents only, by index, from secondaries — never a scan, never orders', async () => {
    const ops = await profiler.operations();
    const analytics = ops.filter((o) => o.collection.startsWith('analytics_'));
    // mongod's own account of every read and write above: nothing scans, sorts in memory or examines more than it returns
    expect(
      unindexedShapes(ops.filter((o) => o.collection.startsWith('analytics_') || o.collection === 'orders')),
    ).toEqual([]);
    const reads = analytics.filter((o) => o.op === 'query' && o.collection !== ANALYTICS_COLLECTIONS.applied);
    expect(reads.length).toBeGreaterThanOrEqual(Object.keys(paths).length);
    expect(reads.filter((o) => o.member === profiler.primary)).toEqual([]);
    expect(new Set(reads.map((o) => `${o.collection} ${o.planSummary}`))).toEqual(
      new Set([
        'analytics_days IXSCAN { zone: 1, day: 1 }',
        'analytics_categories IXSCAN { zone: 1, day: 1, category_id: 1 }',
        'analytics_categories IXSCAN { category_id: 1, zone: 1, day: 1 }',
        'analytics_products IXSCAN { zone: 1, period: 1 }',
        'analytics_products IXSCAN { category_id: 1, zone: 1, period: 1 }',
      ]),
    );
    // the bound: days × zones (× categories: 3 here; × products: 4) — 33 days, 3 zones
    for (const r of reads) {
      const bound =
        { analytics_days: 33 * 3, analytics_categories: 33 * 3 * 3, analytics_products: 33 * 3 * 4 }[
          r.collection
        ] ?? 0;
      expect(r.docsExamined).toBeLessThanOrEqual(bound);
    }
    // the analytics API never reads orders: no member but the primary (the service's own loads, the consumer's) served one
    expect(ops.filter((o) => o.collection === 'orders' && o.member !== profiler.primary)).toEqual([]);
  });

  it('explain: the widest reads examine exactly the counter documents they return', async () => {
    const zones = ['MSK', 'SPB', 'EKB'];
    const secondary = { readPreference: ReadPreference.secondaryPreferred };
    const explain = async (collection: string, filter: object) => {
      const e = (await h.db.collection(collection).find(filter, secondary).explain('executionStats')) as {
        executionStats: { nReturned: number; totalKeysExamined: number; totalDocsExamined: number };
        queryPlanner: { winningPlan: unknown };
      };
      return { ...e.executionStats, plan: JSON.stringify(e.queryPlanner.winningPlan) };
    };
    const cases = [
      // 9 (day, zone) with orders; 9 category cells (o7's two, reversed, included), 4 of phones;
      // product cells of Sep 30, October (month cells) and Nov 1: 8, 2 of TV
      [ANALYTICS_COLLECTIONS.days, cellFilters.days(zones, D1, D4), 9],
      [ANALYTICS_COLLECTIONS.categories, cellFilters.categories(zones, D1, D4, null), 9],
      [ANALYTICS_COLLECTIONS.categories, cellFilters.categories(zones, D1, D4, CAT_PHONES), 4],
      [ANALYTICS_COLLECTIONS.products, cellFilters.products(zones, periodsCovering(D1, D4), null), 8],
      [ANALYTICS_COLLECTIONS.products, cellFilters.products(zones, periodsCovering(D1, D4), CAT_TV), 2],
    ] as const;
    // the consumer's read of an order (primary): by _id, one document
    const orderRead = (await h.db
      .collection('orders')
      .find({ _id: docs[0]!.doc._id as never })
      .explain('executionStats')) as {
      executionStats: { totalDocsExamined: number; nReturned: number };
      queryPlanner: { winningPlan: unknown };
    };
    expect(JSON.stringify(orderRead.queryPlanner.winningPlan)).toContain('IDHACK');
    expect(orderRead.executionStats).toMatchObject({ totalDocsExamined: 1, nReturned: 1 });
    for (const [collection, filter, n] of cases) {
      const e = await explain(collection, filter);
      expect({ collection, returned: e.nReturned, docs: e.totalDocsExamined }).toEqual({
        collection,
        returned: n,
        docs: n,
      });
      expect(e.plan).toContain('IXSCAN');
      expect(e.plan).not.toContain('COLLSCAN');
      // each zone (and period) is one interval of the index: at most one key past each interval's end
      expect(e.totalKeysExamined).toBeLessThanOrEqual(n + zones.length * periodsCovering(D1, D4).length);
    }
  });
});
