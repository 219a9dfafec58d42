/**
 * Sales analytics benchmark (ADR 0051): the same four answers — sales by zone × category × day,
 * top products per category, basket, cancellations by reason — computed two ways on the local
 * replica set, both read from a SECONDARY:
 *   - an aggregation pipeline over `orders` (with the best index it could get, {zone, order_date},
 *     and, for sales, with only the indexes orders has today);
 *   - the read model (`analytics_*` counter documents, the production queries of
 *     AnalyticsRepository).
 * For 1-, 30- and 90-day ranges: client wall time (median of RUNS after a warm-up) and mongod's
 * explain executionStats (keys and documents examined). Both answers are compared: the run fails
 * if they differ. The write side is measured too: refreshes/s through the real transaction
 * (AnalyticsRepository.refresh) and what the read model costs on disk beside the orders.
 *
 *   npm run bench:analytics [-- --orders=150000]     (infra from `npm run infra:env`, started if needed)
 *
 * A scratch database `analytics_bench_<run>` on 127.0.0.1 only, dropped at the end.
 * Results: apps/orders/bench/analytics-results.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Db, Document, MongoClient, ReadPreference } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { uniqueName } from '@mw/testing';
import { OrdersRepository } from '../src/orders/orders.repository';
import {
  ANALYTICS_COLLECTIONS,
  AnalyticsRepository,
  cellFilters,
} from '../src/analytics/analytics.repository';
import { dayOf, periodsCovering, startOfDay } from '../src/analytics/date-range';
import { seededRandom } from '../src/analytics/demo/demo-plan';
import { historicOrder, HistoricOrderDoc, HistoricOutcome } from '../src/analytics/demo/historic-orders';
import {
  basketFigures,
  cancellationFigures,
  CategoryCounters,
  DayCounters,
  salesFigures,
  topProducts,
} from '../src/analytics/figures';
import { cellUpdates, factsOf, markerId, SalesOrder } from '../src/analytics/sales-facts';

const ROOT = join(__dirname, '../../..');
const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const ORDERS = Number(arg('orders') ?? 150_000);
const DAYS = 120;
const ZONES = ['MSK', 'SPB', 'EKB'] as const;
const CATEGORIES = 36;
const PRODUCTS = 2_400;
const RANGES = [1, 30, 90] as const;
const RUNS = 5;
/** Orders refreshed through the real transaction (the consumer's write path); the rest are folded in bulk. */
const REFRESH_SAMPLE = 3_000;
const BATCH = 2_000;

const round = (n: number, d = 1): number => Number(n.toFixed(d));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

function infraEnv(): Record<string, string> {
  const out = execFileSync('npm', ['run', '-s', 'infra:env'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/([A-Z_]+)=('([^']*)'|(\S+))/g)) env[m[1]!] = m[3] ?? m[4] ?? '';
  if (!env['MONGO_URL']) throw new Error(`infra:env gave no MONGO_URL: ${out}`);
  if (!/127\.0\.0\.1|localhost/.test(env['MONGO_URL']))
    throw new Error(`MONGO_URL=${env['MONGO_URL']}: the benchmark targets 127.0.0.1 only`);
  return env;
}

function infraVersions(): string[] {
  try {
    const out = execFileSync('npm', ['run', '-s', 'infra:status'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    return out
      .split('\n')
      .filter((l) => /^mongodb\s/.test(l))
      .map((l) => l.replace(/\s{2,}/g, ' | ').trim());
  } catch {
    return [];
  }
}

function previousNotes(): unknown {
  try {
    return (
      (JSON.parse(readFileSync(join(__dirname, 'analytics-results.json'), 'utf8')) as { notes?: unknown })
        .notes ?? []
    );
  } catch {
    return [];
  }
}

/** N orders over DAYS days: zones 5:3:2, popular products sell more, 1–3 lines; ~80 % sold, 16 % cancelled in checkout, 3 % after confirmation, 1 % pending. */
function* generateOrders(n: number, lastDay: string): Generator<HistoricOrderDoc> {
  const r = seededRandom(51);
  const categories = Array.from(
    { length: CATEGORIES },
    (_, i) => `5eed0000000000000000${(0xa00 + i).toString(16).padStart(4, '0')}`,
  );
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({
    id: `5eed${i.toString(16).padStart(20, '0')}`,
    name: `Товар ${i}`,
    category_id: categories[i % CATEGORIES]!,
    price: 49_000 + ((i * 7919) % 400) * 25_000,
  }));
  const first = startOfDay(lastDay).getTime() - (DAYS - 1) * 86_400_000;
  const reasons = [
    'STOCK_REJECTED',
    'PAYMENT_DECLINED',
    'STOCK_DEADLINE_EXCEEDED',
    'PAYMENT_DEADLINE_EXCEEDED',
    'COMMIT_FAILED',
    'CANCELLED_BY_USER',
  ] as const;
  for (let i = 0; i < n; i++) {
    const at = new Date(first + Math.floor((i / n) * DAYS * 86_400_000) + Math.floor(r() * 60_000));
    const zone = r() < 0.5 ? 'MSK' : r() < 0.6 ? 'SPB' : 'EKB';
    const lines = r() < 0.6 ? 1 : r() < 0.75 ? 2 : 3;
    const items = [];
    for (let l = 0; l < lines; l++) {
      const p = products[Math.floor(PRODUCTS * r() ** 2.5)]!;
      items.push({
        product_id: p.id,
        name: p.name,
        category_id: p.category_id,
        price: p.price,
        qty: r() < 0.85 ? 1 : 2,
      });
    }
    const x = r();
    const outcome: HistoricOutcome =
      x < 0.8
        ? { kind: 'completed' }
        : x < 0.96
          ? { kind: 'cancelled', reason: reasons[Math.floor(r() * reasons.length)]! }
          : x < 0.99
            ? { kind: 'cancelled_after_confirmation' }
            : { kind: 'pending', deadline: new Date('2100-01-01T00:00:00.000Z') };
    const doc = historicOrder(
      { seed: `bench-${i}`, userId: `user-${Math.floor(r() * 20_000)}`, zone, at, items, outcome },
      'orders.orders.v1',
    ).doc;
    // as the service leaves an order once its relay has published the outbox
    yield { ...doc, _outbox: [] };
  }
}

/** The pipeline equivalents of the four answers, over orders. */
function pipelines(zones: readonly string[], from: string, to: string) {
  const match = {
    zone: { $in: [...zones] },
    order_date: { $gte: startOfDay(from), $lt: new Date(startOfDay(to).getTime() + 86_400_000) },
  };
  const netSold = { 'saga.history.to': 'CONFIRMED', 'saga.state': { $ne: 'CANCELLED' } };
  const day = { $dateToString: { format: '%Y-%m-%d', date: '$order_date' } };
  const category = { $toLower: { $ifNull: ['$items.category_id', 'uncategorized'] } };
  return {
    sales: [
      { $match: { ...match, ...netSold } },
      {
        $facet: {
          rows: [
            { $unwind: '$items' },
            {
              $group: {
                _id: { day, zone: '$zone', category_id: category, order: '$_id' },
                revenue: { $sum: { $multiply: ['$items.price', '$items.qty'] } },
                units: { $sum: '$items.qty' },
              },
            },
            {
              $group: {
                _id: { day: '$_id.day', zone: '$_id.zone', category_id: '$_id.category_id' },
                revenue: { $sum: '$revenue' },
                units: { $sum: '$units' },
                orders: { $sum: 1 },
              },
            },
          ],
          totals: [
            {
              $group: {
                _id: null,
                orders: { $sum: 1 },
                revenue: { $sum: '$total' },
                units: { $sum: { $sum: '$items.qty' } },
              },
            },
          ],
        },
      },
    ],
    top: [
      { $match: { ...match, ...netSold } },
      { $unwind: '$items' },
      {
        $group: {
          _id: { category_id: category, product_id: '$items.product_id', order: '$_id' },
          name: { $last: '$items.name' },
          revenue: { $sum: { $multiply: ['$items.price', '$items.qty'] } },
          units: { $sum: '$items.qty' },
        },
      },
      {
        $group: {
          _id: { category_id: '$_id.category_id', product_id: '$_id.product_id' },
          name: { $last: '$name' },
          revenue: { $sum: '$revenue' },
          units: { $sum: '$units' },
          orders: { $sum: 1 },
        },
      },
    ],
    basket: [
      { $match: { ...match, ...netSold } },
      {
        $group: {
          _id: day,
          orders: { $sum: 1 },
          revenue: { $sum: '$total' },
          units: { $sum: { $sum: '$items.qty' } },
        },
      },
    ],
    cancellations: [
      { $match: match },
      {
        $group: {
          _id: { $cond: [{ $eq: ['$saga.state', 'CANCELLED'] }, '$saga.reason', null] },
          n: { $sum: 1 },
          reversed: {
            $sum: {
              $cond: [
                { $and: [{ $eq: ['$saga.state', 'CANCELLED'] }, { $in: ['CONFIRMED', '$saga.history.to'] }] },
                1,
                0,
              ],
            },
          },
        },
      },
    ],
  };
}

type Answer = unknown;

/** The answer of a pipeline, in the shape figures.ts gives the read model's. */
function answerOfPipeline(kind: keyof ReturnType<typeof pipelines>, docs: Document[]): Answer {
  switch (kind) {
    case 'sales': {
      const f = docs[0] as {
        rows: {
          _id: { day: string; zone: string; category_id: string };
          revenue: number;
          units: number;
          orders: number;
        }[];
        totals: DayCounters[];
      };
      const rows: CategoryCounters[] = f.rows.map((r) => ({
        ...r._id,
        revenue: r.revenue,
        units: r.units,
        orders: r.orders,
      }));
      return salesFigures(
        rows,
        f.totals.map((t) => ({ ...t, day: '', zone: '' })),
        null,
      );
    }
    case 'top':
      return topProducts(
        docs.map((d) => ({
          period: 'D:x',
          zone: '',
          category_id: d['_id'].category_id,
          product_id: d['_id'].product_id,
          name: d['name'],
          revenue: d['revenue'],
          units: d['units'],
          orders: d['orders'],
        })),
        'revenue',
        10,
      ).map((c) => ({ ...c, products: c.products.map(({ name: _n, ...p }) => p) }));
    case 'basket':
      return basketFigures(
        docs.map((d) => ({
          day: d['_id'],
          zone: '',
          orders: d['orders'],
          revenue: d['revenue'],
          units: d['units'],
        })),
      );
    case 'cancellations': {
      const days: DayCounters[] = docs.map((d) => ({
        day: '',
        zone: '',
        placed: d['n'],
        cancelled: d['_id'] === null ? 0 : d['n'],
        sales_reversed: d['reversed'],
        cancelled_by_reason: d['_id'] === null ? {} : { [d['_id']]: d['n'] },
      }));
      return cancellationFigures(days);
    }
  }
}

/** The same answer from the read model, by the production queries (AnalyticsRepository). */
async function answerOfReadModel(
  repo: AnalyticsRepository,
  kind: keyof ReturnType<typeof pipelines>,
  zones: readonly string[],
  from: string,
  to: string,
): Promise<Answer> {
  switch (kind) {
    case 'sales':
      return salesFigures(
        await repo.categories(zones, from, to, null),
        await repo.days(zones, from, to),
        null,
      );
    case 'top':
      // names as last sold may differ between a month cell and the pipeline's $last: compare the figures
      return topProducts(await repo.products(zones, periodsCovering(from, to), null), 'revenue', 10).map(
        (c) => ({ ...c, products: c.products.map(({ name: _n, ...p }) => p) }),
      );
    case 'basket':
      return basketFigures(await repo.days(zones, from, to));
    case 'cancellations':
      return cancellationFigures(await repo.days(zones, from, to));
  }
}

interface Stats {
  keys_examined: number;
  docs_examined: number;
  returned: number;
  server_ms: number;
}

/** Sums the executionStats found anywhere in an explain document (an aggregate's $cursor stage, or a find). */
function statsOf(explain: Document): Stats {
  const out: Stats = { keys_examined: 0, docs_examined: 0, returned: 0, server_ms: 0 };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o['totalDocsExamined'] === 'number' && typeof o['totalKeysExamined'] === 'number') {
      out.keys_examined += o['totalKeysExamined'];
      out.docs_examined += o['totalDocsExamined'];
      out.returned += Number(o['nReturned'] ?? 0);
      out.server_ms += Number(o['executionTimeMillis'] ?? 0);
      return;
    }
    Object.values(o).forEach(walk);
  };
  walk(explain);
  return out;
}

async function timed(fn: () => Promise<unknown>): Promise<{ median: number; min: number; max: number }> {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { median: round(median(ms)), min: round(Math.min(...ms)), max: round(Math.max(...ms)) };
}

async function sizes(db: Db, name: string): Promise<Record<string, number>> {
  const s = await db.command({ collStats: name, scale: 1024 * 1024 });
  return {
    documents: s['count'],
    data_mb: round(s['size'], 2),
    storage_mb: round(s['storageSize'], 2),
    indexes_mb: round(s['totalIndexSize'], 2),
  };
}

async function main(): Promise<void> {
  const infra = infraEnv();
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  const mongo: MongoClient = await createMongoClient(infra['MONGO_URL']!, {
    writeConcern: { w: 'majority' },
  }).connect();
  const run = uniqueName('anbench').toLowerCase();
  const db = mongo.db(`analytics_bench_${run}`);
  const secondary = new ReadPreference('secondary');
  try {
    const lastDay = dayOf(new Date(Date.now() - 86_400_000));
    const orders = db.collection<HistoricOrderDoc>('orders');
    await new OrdersRepository(db).ensureIndexes();
    // the pipeline's best case: an index on its $match (orders has only {zone} today)
    await orders.createIndex({ zone: 1, order_date: 1 }, { name: 'zone_order_date' });
    const repo = new AnalyticsRepository(mongo, db, secondary);
    await repo.ensureIndexes();

    // 1. orders, as the service stores them (its indexes, majority writes)
    console.log(`[bench] inserting ${ORDERS} orders over ${DAYS} days`);
    const t0 = performance.now();
    let batch: HistoricOrderDoc[] = [];
    const sample: string[] = [];
    const folded: HistoricOrderDoc[] = [];
    const cells = new Map<
      string,
      { table: 'days' | 'categories' | 'products'; doc: Record<string, unknown> }
    >();
    const markers: { _id: string; order_id: string; fact: string; applied_at: Date }[] = [];
    const fold = (o: HistoricOrderDoc): void => {
      const facts = factsOf(o as SalesOrder);
      for (const f of facts)
        markers.push({ _id: markerId(o._id, f), order_id: o._id, fact: f, applied_at: new Date() });
      for (const u of cellUpdates(o as SalesOrder, facts)) {
        const key = `${u.table}/${u.id}`;
        const cell = cells.get(key) ?? { table: u.table, doc: { _id: u.id, ...u.keys } };
        for (const [k, v] of Object.entries(u.inc)) {
          const [a, b] = k.split('.') as [string, string | undefined];
          if (b === undefined) cell.doc[a] = ((cell.doc[a] as number | undefined) ?? 0) + v;
          else {
            const sub = (cell.doc[a] as Record<string, number> | undefined) ?? {};
            sub[b] = (sub[b] ?? 0) + v;
            cell.doc[a] = sub;
          }
        }
        if (u.set) Object.assign(cell.doc, u.set);
        cells.set(key, cell);
      }
    };
    for (const o of generateOrders(ORDERS, lastDay)) {
      batch.push(o);
      if (sample.length < REFRESH_SAMPLE) sample.push(o._id);
      else folded.push(o);
      if (batch.length === BATCH) {
        await orders.insertMany(batch, { ordered: false });
        batch = [];
        for (const f of folded.splice(0)) fold(f);
      }
    }
    if (batch.length) await orders.insertMany(batch, { ordered: false });
    for (const f of folded.splice(0)) fold(f);
    const insertSeconds = (performance.now() - t0) / 1000;
    console.log(`[bench] inserted in ${round(insertSeconds)} s`);

    // 2. the read model: a sample through the consumer's transaction (measured), the rest folded in bulk with the same rules
    const refreshMs: number[] = [];
    const tr = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < sample.length) {
          const id = sample[next++]!;
          const s = performance.now();
          await repo.refresh(id);
          refreshMs.push(performance.now() - s);
        }
      }),
    );
    const refreshSeconds = (performance.now() - tr) / 1000;
    // the sampled orders' cells exist already: add the bulk counters to them
    const byTable = { days: [] as Document[], categories: [] as Document[], products: [] as Document[] };
    for (const c of cells.values()) byTable[c.table].push(c.doc);
    for (const [table, docs] of Object.entries(byTable) as [keyof typeof byTable, Document[]][]) {
      const coll = db.collection<Document>(ANALYTICS_COLLECTIONS[table]);
      for (let i = 0; i < docs.length; i += 5000) {
        await coll.bulkWrite(
          docs.slice(i, i + 5000).map((d) => {
            const { _id, ...rest } = d;
            const inc: Record<string, number> = {};
            const set: Record<string, unknown> = {};
            for (const [k, v] of Object.entries(rest)) {
              if (typeof v === 'number') inc[k] = v;
              else if (v !== null && typeof v === 'object')
                for (const [sk, sv] of Object.entries(v as Record<string, number>)) inc[`${k}.${sk}`] = sv;
              else set[k] = v;
            }
            return { updateOne: { filter: { _id }, update: { $inc: inc, $set: set }, upsert: true } };
          }),
          { ordered: false },
        );
      }
    }
    for (let i = 0; i < markers.length; i += 10_000)
      await db
        .collection(ANALYTICS_COLLECTIONS.applied)
        .insertMany(markers.slice(i, i + 10_000) as never[], { ordered: false });
    // every member has everything before reads go to a secondary
    await db
      .collection('bench_sync')
      .insertOne({ at: new Date() }, { writeConcern: { w: 3, wtimeoutMS: 120_000 } });

    // 3. the same answers both ways, from a secondary
    const results: Record<string, unknown>[] = [];
    const cases: { kind: keyof ReturnType<typeof pipelines>; days: number; zones: readonly string[] }[] = [];
    for (const kind of ['sales', 'top', 'basket', 'cancellations'] as const)
      for (const days of RANGES) cases.push({ kind, days, zones: ['MSK'] });
    cases.push({ kind: 'sales', days: 90, zones: ZONES });
    for (const c of cases) {
      const from = dayOf(new Date(startOfDay(lastDay).getTime() - (c.days - 1) * 86_400_000));
      const pipeline = pipelines(c.zones, from, lastDay)[c.kind];
      const runPipeline = () =>
        orders.aggregate(pipeline, { readPreference: secondary, allowDiskUse: true }).toArray();
      const pipelineAnswer = answerOfPipeline(c.kind, await runPipeline());
      const modelAnswer = await answerOfReadModel(repo, c.kind, c.zones, from, lastDay);
      if (
        !isDeepStrictEqual(
          JSON.parse(JSON.stringify(pipelineAnswer)),
          JSON.parse(JSON.stringify(modelAnswer)),
        )
      ) {
        throw new Error(
          `${c.kind} ${c.days}d ${c.zones.join(',')}: the pipeline and the read model disagree`,
        );
      }
      const pipelineTime = await timed(runPipeline);
      const pipelineStats = statsOf(
        await orders
          .aggregate(pipeline, { readPreference: secondary, allowDiskUse: true })
          .explain('executionStats'),
      );
      const modelTime = await timed(() => answerOfReadModel(repo, c.kind, c.zones, from, lastDay));
      const filters: [string, Document][] =
        c.kind === 'sales'
          ? [
              [ANALYTICS_COLLECTIONS.categories, cellFilters.categories(c.zones, from, lastDay, null)],
              [ANALYTICS_COLLECTIONS.days, cellFilters.days(c.zones, from, lastDay)],
            ]
          : c.kind === 'top'
            ? [
                [
                  ANALYTICS_COLLECTIONS.products,
                  cellFilters.products(c.zones, periodsCovering(from, lastDay), null),
                ],
              ]
            : [[ANALYTICS_COLLECTIONS.days, cellFilters.days(c.zones, from, lastDay)]];
      const modelStats: Stats = { keys_examined: 0, docs_examined: 0, returned: 0, server_ms: 0 };
      for (const [coll, filter] of filters) {
        const s = statsOf(
          await db.collection(coll).find(filter, { readPreference: secondary }).explain('executionStats'),
        );
        modelStats.keys_examined += s.keys_examined;
        modelStats.docs_examined += s.docs_examined;
        modelStats.returned += s.returned;
        modelStats.server_ms += s.server_ms;
      }
      const row: Record<string, unknown> = {
        query: c.kind,
        range_days: c.days,
        zones: c.zones.join(','),
        same_answer: true,
        pipeline: { ms: pipelineTime, ...pipelineStats },
        read_model: { ms: modelTime, ...modelStats },
        speedup_median: round(pipelineTime.median / modelTime.median),
      };
      if (c.kind === 'sales' && c.zones.length === 1) {
        // what the pipeline costs with only the indexes orders has today ({zone} alone)
        const existing = () =>
          orders
            .aggregate(pipeline, { readPreference: secondary, allowDiskUse: true, hint: 'zone' })
            .toArray();
        row['pipeline_existing_indexes_only'] = {
          ms: await timed(existing),
          ...statsOf(
            await orders
              .aggregate(pipeline, { readPreference: secondary, allowDiskUse: true, hint: 'zone' })
              .explain('executionStats'),
          ),
        };
      }
      console.log(JSON.stringify(row));
      results.push(row);
    }

    const ordersSizes = await sizes(db, 'orders');
    const model: Record<string, Record<string, number>> = {};
    for (const name of Object.values(ANALYTICS_COLLECTIONS)) model[name] = await sizes(db, name);
    const orderIndexes = (await db.command({ collStats: 'orders', scale: 1024 * 1024 }))[
      'indexSizes'
    ] as Record<string, number>;
    const report = {
      command: `npm run bench:analytics${arg('orders') ? ` -- --orders=${ORDERS}` : ''}`,
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu_model: os.cpus()[0]?.model,
        mem_gb: Math.round(os.totalmem() / 2 ** 30),
        load_average_at_start: loadAtStart,
        load_average_at_end: os.loadavg().map((l) => round(l, 2)),
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
      },
      servers: {
        mongodb: (await mongo.db('admin').command({ buildInfo: 1 }))['version'],
        infra_status: infraVersions(),
      },
      setup: {
        orders: ORDERS,
        days: DAYS,
        last_day: lastDay,
        zones: 'MSK 50 %, SPB 30 %, EKB 20 %',
        catalog: `${PRODUCTS} products in ${CATEGORIES} categories, popularity skewed (index = N·u^2.5)`,
        lines: '1–3 per order (60/15/25 %), 1–2 units',
        outcomes:
          'completed 80 %, cancelled in checkout 16 % (6 reasons), cancelled after confirmation 3 %, pending 1 %',
        reads:
          'both from a SECONDARY (readPreference secondary); time = client wall clock, median/min/max of 5 runs after one warm-up',
        pipeline_index:
          '{zone: 1, order_date: 1} added to orders for the pipeline (its best case); `pipeline_existing_indexes_only` hints {zone: 1}',
        read_model:
          'the production queries of AnalyticsRepository; top products read month cells for whole months, day cells at the edges',
        equality:
          'every row: the pipeline answer and the read-model answer are equal (the run fails otherwise)',
      },
      write_path: {
        orders_inserted_per_s: round(ORDERS / insertSeconds),
        refresh_sample_orders: sample.length,
        refresh_concurrency: 8,
        refreshes_per_s: round(sample.length / refreshSeconds),
        refresh_ms: { p50: round(pct(refreshMs, 50)), p99: round(pct(refreshMs, 99)) },
        note: 'a refresh = the consumer transaction for one order event (read order + markers, insert markers, upsert counters), w: majority',
      },
      storage: {
        orders: { ...ordersSizes, index_zone_order_date_mb: round(orderIndexes['zone_order_date'] ?? 0, 2) },
        read_model: model,
      },
      results,
      // The analysis (the decision it supports) is written by whoever reads a run; kept across reruns.
      notes: previousNotes(),
    };
    writeFileSync(join(__dirname, 'analytics-results.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
}

main().catch((e: unknown) => {
  console.error(`[bench] failed: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
