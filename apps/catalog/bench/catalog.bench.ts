/**
 * npm run bench:catalog — bounded (≈ 2–3 minutes) on the real servers:
 *  1. "New in category" first page: Cassandra (products_by_category) vs the equivalent MongoDB
 *     search (ancestors multikey + created_at, on the replica set's secondaries) through the
 *     service's repository, and the same find by a bare driver loop (the limit beside it), at a
 *     fixed concurrency for a fixed time; req/s, p50, p99 of the requests that answered with rows
 *     (failed and empty ones are counted apart: bench/load.ts).
 *  2. Projector: the built projector bundle (its own process) consumes a burst of
 *     ProductPriceChanged events; events/s and lag p99 (occurred_at → applied, from /metrics).
 * Uses its own MongoDB database, Cassandra keyspace and topic; drops them afterwards.
 * Run on its own it takes the local servers' variables from `npm run infra:env`.
 *
 *   npm run bench:catalog                                  full size → apps/catalog/bench/results.json
 *   npm run bench:catalog -- --seconds=3 --burst=500 --out=/tmp/catalog-bench.json   a check run
 * No Nest DI here (tsx): services are built by hand.
 */
import { execSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'cassandra-driver';
import { Document, MongoClient, ReadPreference } from 'mongodb';
import pino from 'pino';
import { createMessage, OutgoingMessage } from '@mw/contracts';
import { createKafka, ensureTopics, KafkaPublisher } from '@mw/messaging';
import { connectCassandra, createMongoClient } from '@mw/persistence';
import { kafkaSaslOf, loadConfig, Metrics } from '@mw/platform';
import { cpuSeconds, infraServerPid, loadInfraEnv, serviceToken, uniqueName } from '@mw/testing';
import { CategoriesRepository } from '../src/categories/categories.repository';
import { CategoryTraffic } from '../src/categories/category-traffic';
import { catalogConfigSchema, projectorConcurrency } from '../src/config';
import { demoProducts, DEMO_TREE, DemoCategory } from '../src/demo/demo-data';
import { ListingRepository } from '../src/listing/listing.repository';
import { ListingService } from '../src/listing/listing.service';
import { Product, toSnapshot } from '../src/products/product';
import { ProductsReparenter } from '../src/products/products-reparenter';
import { ProductsRepository } from '../src/products/products.repository';
import { ProductsService } from '../src/products/products.service';
import { CategoriesService } from '../src/categories/categories.service';
import { buildSearch } from '../src/search/search-query';
import { SearchRepository, toDriver } from '../src/search/search.repository';
import { ensureCatalogSchema } from '../src/shared/catalog-db';
import { cassandraOptions } from '../src/shared/cassandra-options';
import { rebuild } from '../scripts/read-model-sync';
import { LoadResult, OfferedLoadResult, runLoad, runOfferedLoad } from './load';

const ROOT = join(__dirname, '../../..');
const CONCURRENCY = 16;
/** The open-loop figure of issue 23: first-page p99 at this many requests per second offered. */
const OFFERED_PER_S = flag('offered', 2000);
const PRODUCTS = 2400;

/** `--name=value` of the command line, or the full-size default. */
function flag(name: string, fallback: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return n;
}
const DURATION_MS = flag('seconds', 15) * 1000;
const BURST = flag('burst', 10_000);
/** A check run writes elsewhere so the committed full-size figures are not overwritten. */
const OUT =
  process.argv.find((a) => a.startsWith('--out='))?.slice('--out='.length) ?? join(__dirname, 'results.json');

loadInfraEnv(ROOT);
// a uniqueName token: the run's names are dropped with the benchmarks' ledger, a crashed run's by the sweep
const suffix = uniqueName('b').toLowerCase();
const config = loadConfig(catalogConfigSchema, {
  ...process.env,
  MONGO_DB: `catalog_bench_${suffix}`,
  CASSANDRA_KEYSPACE: `catalog_bench_${suffix}`,
  CATALOG_READ_PREFERENCE: 'secondaryPreferred', // as deployed: search reads from secondaries (ADR 0003)
  LOG_LEVEL: 'warn',
});
const logger = pino({ level: 'warn' });
// The projector child verifies tokens of this issuer, and serviceToken() asks it for the scrape token
// (/metrics needs the role operator): both from the config, i.e. the environment or the local Keycloak.
process.env['OIDC_ISSUER'] = config.OIDC_ISSUER;
process.env['OIDC_AUDIENCE'] = config.OIDC_AUDIENCE;

async function main(): Promise<void> {
  const mongo = await createMongoClient(config.MONGO_URL).connect();
  const db = mongo.db(config.MONGO_DB);
  const cassandra = await connectCassandra(cassandraOptions(config));
  try {
    const { categoryIds, products } = await seed(db);
    process.stdout.write(`seeded ${products.length} products in ${categoryIds.length} categories\n`);
    await rebuild(db, cassandra, config.CATALOG_LISTING_PERIOD_DAYS);
    const listing = new ListingService(
      new ListingRepository(cassandra),
      new CategoriesRepository(db),
      new CategoryTraffic(new Metrics()),
      config,
    );
    const search = new SearchRepository(db, config);
    const hot = (await new CategoriesRepository(db).findBySlug('elektronika'))!.id;
    const pickCategory = (i: number) => (i % 2 === 0 ? hot : categoryIds[i % categoryIds.length]!); // half the reads hit the hot category
    const cass = await load('cassandra', (i) =>
      listing.newest(pickCategory(i), 20, null).then((p) => p.items.length),
    );
    const mongoRes = await load('mongodb', (i) =>
      search
        .find(
          buildSearch({
            category_id: pickCategory(i),
            include_subcategories: true,
            attributes: {},
            sort: 'newest',
            limit: 21,
          }),
        )
        .then((d) => d.length),
    );
    const bareQuery = (i: number) =>
      buildSearch({
        category_id: pickCategory(i),
        include_subcategories: true,
        attributes: {},
        sort: 'newest',
        limit: 21,
      });
    const bareRead = new ReadPreference('secondaryPreferred', undefined, { maxStalenessSeconds: 90 });
    const mongoBare = await load('mongodb bare driver', (i) => {
      const q = bareQuery(i);
      return db
        .collection('products')
        .find(toDriver(q.filter) as Document, { readPreference: bareRead, projection: { _outbox: 0 } })
        .sort(q.sort)
        .limit(q.limit)
        .toArray()
        .then((d) => d.length);
    });
    const cassOffered = await offered('cassandra', (i) => listing.newest(pickCategory(i), 20, null).then((p) => p.items.length));
    const mongoOffered = await offered('mongodb', (i) =>
      search.find(buildSearch({ category_id: pickCategory(i), include_subcategories: true, attributes: {}, sort: 'newest', limit: 21 })).then((d) => d.length),
    );
    const projector = await projectorBurst(products, cassandra);
    const results = {
      command: ['npm run bench:catalog', ...process.argv.slice(2)].join(' '),
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model,
        mem_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      servers: await versions(mongo, cassandra),
      dataset: {
        products: products.length,
        categories: categoryIds.length,
        hot_category: 'Электроника (half of the reads)',
        listing_period_days: config.CATALOG_LISTING_PERIOD_DAYS,
      },
      listing_first_page_20: {
        concurrency: CONCURRENCY,
        duration_s: DURATION_MS / 1000,
        cassandra: cass,
        mongodb: mongoRes,
        mongodb_bare_driver: mongoBare,
        mongodb_service_to_bare_ratio: Number((mongoRes.req_per_s / mongoBare.req_per_s).toFixed(2)),
        cassandra_to_mongodb_ratio: Number((cass.req_per_s / mongoRes.req_per_s).toFixed(2)),
      },
      listing_first_page_20_offered: {
        offered_per_s: OFFERED_PER_S,
        duration_s: DURATION_MS / 1000,
        latency: 'open loop, each request timed from its scheduled start (bench/load.ts runOfferedLoad); shed = due while 512 were outstanding',
        cassandra: cassOffered,
        mongodb: mongoOffered,
      },
      projector,
      load_average_at_end: loadavg().map((n) => Number(n.toFixed(2))),
    };
    writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${config.CASSANDRA_KEYSPACE}`).catch(() => undefined);
    await cassandra.shutdown();
    await mongo.close();
  }
}

async function seed(db: import('mongodb').Db): Promise<{ categoryIds: string[]; products: Product[] }> {
  await ensureCatalogSchema(db);
  const catsRepo = new CategoriesRepository(db);
  const prodRepo = new ProductsRepository(db);
  const categories = new CategoriesService(catsRepo, new ProductsReparenter(prodRepo), logger);
  const productsService = new ProductsService(prodRepo, catsRepo);
  const bySlug = new Map<string, string>();
  const walk = async (c: DemoCategory, parent: string | null): Promise<void> => {
    const created = await categories.create({ name: c.name, slug: c.slug, parent_id: parent });
    bySlug.set(c.slug, created.id);
    for (const ch of c.children ?? []) await walk(ch, created.id);
  };
  for (const root of DEMO_TREE) await walk(root, null);
  const products: Product[] = [];
  const list = demoProducts(PRODUCTS);
  for (let i = 0; i < list.length; i += 50) {
    const batch = await Promise.all(
      list.slice(i, i + 50).map((p) =>
        productsService.create(
          {
            name: p.name,
            category_id: bySlug.get(p.leaf)!,
            price: p.price,
            attributes: p.attributes,
            pricing: p.pricing,
          },
          { id: p.id, now: p.created_at },
        ),
      ),
    );
    products.push(...batch.map((b) => b.product));
  }
  return { categoryIds: [...bySlug.values()], products };
}

async function offered(name: string, op: (i: number) => Promise<number>): Promise<OfferedLoadResult> {
  const r = await runOfferedLoad(op, { ratePerS: OFFERED_PER_S, durationMs: DURATION_MS, maxOutstanding: 512 });
  process.stdout.write(`${name} at ${OFFERED_PER_S}/s offered: ${JSON.stringify(r)}\n`);
  return r;
}

async function load(name: string, op: (i: number) => Promise<number>): Promise<LoadResult> {
  const r = await runLoad(op, { concurrency: CONCURRENCY, durationMs: DURATION_MS, warmup: 10 });
  process.stdout.write(`${name}: ${JSON.stringify(r)}\n`);
  return r;
}

/** Spawns the projector bundle on a bench topic, publishes the burst, watches /metrics. */
async function projectorBurst(products: Product[], cassandra: Client): Promise<Record<string, unknown>> {
  const bundle = join(ROOT, 'dist/apps/catalog-projector/main.js');
  // Always through Nx: its cache makes this instant when the bundle is current; a stale bundle would measure old code.
  execSync('NX_DAEMON=false npx nx run catalog:build-projector', { cwd: ROOT, stdio: 'inherit' });
  const topic = `catalog.products.v1.bench-${suffix}`;
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    sasl: kafkaSaslOf(config),
    clientId: 'catalog-bench',
    logger,
  });
  await ensureTopics(kafka, [topic], config.KAFKA_TOPIC_PARTITIONS);
  const port = 3900 + Math.floor(Math.random() * 90);
  // --cpu-prof-dir=DIR: a V8 CPU profile of the projector, written when it exits (node --cpu-prof)
  const profileDir = process.argv.find((a) => a.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, '--enable-source-maps', bundle], {
    cwd: ROOT,
    env: {
      ...process.env,
      MONGO_DB: config.MONGO_DB,
      CASSANDRA_KEYSPACE: config.CASSANDRA_KEYSPACE,
      PROJECTOR_TOPIC: topic,
      PROJECTOR_GROUP_ID: `catalog-projector-bench-${suffix}`,
      PROJECTOR_START_FROM: 'earliest',
      PROJECTOR_HTTP_PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const publisher = new KafkaPublisher(kafka);
  try {
    await until(
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok,
      90_000,
      'projector ready',
    );
    // Burst: every product gets ~4 price changes, versions 2..5; published as fast as the producer goes.
    const versions = new Map(products.map((p) => [p.id, p]));
    // Each chunk is stamped (occurred_at) just before it is sent, as an outbox relay would send it:
    // stamping all 10,000 first made the lag of the last ones include the publish time itself.
    const bursts: (() => OutgoingMessage)[] = [];
    for (let i = 0; i < BURST; i++) {
      const prev = versions.get(products[i % products.length]!.id)!;
      const next: Product = {
        ...prev,
        price: prev.price + 100,
        version: prev.version + 1,
        updated_at: new Date(),
      };
      versions.set(prev.id, next);
      const payload = { ...toSnapshot(next), previous_price: prev.price };
      bursts.push(() => {
        const msg = createMessage('catalog.products.v1', 'ProductPriceChanged', payload, {
          correlation_id: `bench-${suffix}`,
          causation_id: null,
        });
        return { ...msg, topic } as unknown as OutgoingMessage;
      });
    }
    // CPU of the projector and of the servers it drives over the burst, from /proc (per event below)
    const infraDir = process.env['INFRA_DIR'] ?? join(ROOT, '.infra');
    const measured: Record<string, number | undefined> = { projector: child.pid, cassandra: infraServerPid(infraDir, 'cassandra'), kafka: infraServerPid(infraDir, 'kafka') };
    const cpuNow = () => Object.fromEntries(Object.entries(measured).map(([k, pid]) => [k, pid ? cpuSeconds(pid) : NaN]));
    const cpuBefore = cpuNow();
    const t0 = performance.now();
    for (let i = 0; i < bursts.length; i += 500)
      await publisher.publishAll(bursts.slice(i, i + 500).map((make) => make()));
    const publishedS = (performance.now() - t0) / 1000;
    let metrics = '';
    await until(
      async () => {
        metrics = await (
          await fetch(`http://127.0.0.1:${port}/metrics`, {
            headers: { authorization: `Bearer ${await serviceToken()}` },
          })
        ).text();
        return counter(metrics, 'catalog_projection_events_total') >= BURST;
      },
      150_000,
      'projector applied the burst',
      250,
    );
    const appliedS = (performance.now() - t0) / 1000;
    const cpuAfter = cpuNow();
    const cpuMsPerEvent = Object.fromEntries(Object.keys(measured).map((k) => [k, round(((cpuAfter[k]! - cpuBefore[k]!) * 1000) / BURST)]));
    const last = products[products.length - 1]!;
    const row = (
      await cassandra.execute('SELECT version FROM products_by_id WHERE product_id = ?', [last.id], {
        prepare: true,
      })
    ).first();
    const r = {
      burst_events: BURST,
      topic_partitions: config.KAFKA_TOPIC_PARTITIONS,
      partitions_consumed_concurrently: projectorConcurrency(config),
      writes_per_event:
        '1 products_by_id + 1 row per ancestor (3 levels) + 1 product_versions; a fetched batch goes as unlogged batches, one per Cassandra partition',
      publish_s: round(publishedS),
      applied_s: round(appliedS),
      events_per_s: Math.round(BURST / appliedS),
      cpu_ms_per_event: cpuMsPerEvent,
      cpu_note: 'utime+stime from /proc over publish → last event applied, divided by the events (Kafka includes the publish)',
      lag_p50_s: histogramQuantile(metrics, 0.5),
      lag_p99_s: histogramQuantile(metrics, 0.99),
      lag_note:
        'from the catalog_projection_lag_seconds histogram (bucket interpolation); occurred_at is stamped as each chunk of 500 is sent, so the lag includes the time the event waited in Kafka behind the burst but not the bench holding it before sending',
      coalesced_events: counter(metrics, 'catalog_projection_events_coalesced_total'),
      converged_version_check: Number(row?.['version']?.toString()) === versions.get(last.id)!.version,
    };
    process.stdout.write(`projector: ${JSON.stringify(r)}\n`);
    return r;
  } finally {
    await publisher.disconnect();
    child.kill('SIGTERM');
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic, `${topic}.dlq`] }).catch(() => undefined);
    await admin.disconnect();
  }
}

function counter(metrics: string, name: string): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
}

/** Quantile from the lag histogram, summed over event types, linear within a bucket. */
function histogramQuantile(metrics: string, q: number): number {
  const buckets = new Map<number, number>();
  for (const l of metrics.split('\n')) {
    const m =
      /^catalog_projection_lag_seconds_bucket\{le="([^"]+)",type="[^"]+"\} (\d+)/.exec(l) ??
      /^catalog_projection_lag_seconds_bucket\{type="[^"]+",le="([^"]+)"\} (\d+)/.exec(l);
    if (!m) continue;
    const le = m[1] === '+Inf' ? Infinity : Number(m[1]);
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted[sorted.length - 1]?.[1] ?? 0;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of sorted) {
    if (count >= rank) {
      if (le === Infinity) return prevLe;
      return round(prevLe + ((le - prevLe) * (rank - prevCount)) / Math.max(1, count - prevCount));
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

async function versions(mongo: MongoClient, cassandra: Client): Promise<Record<string, string>> {
  const info = await mongo.db('admin').command({ buildInfo: 1 });
  const cass = (await cassandra.execute('SELECT release_version FROM system.local')).first();
  let kafka = 'unknown';
  try {
    const status = execSync('npm run -s infra:status', {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    kafka = /Apache Kafka [\d.]+/.exec(status)?.[0] ?? kafka;
  } catch {
    /* status is informative only */
  }
  const hello = await mongo.db('admin').command({ hello: 1 });
  return {
    mongodb: `MongoDB ${String(info['version'])} (replica set ${String(hello['setName'])}, ${(hello['hosts'] as string[]).length} members)`,
    cassandra: `Apache Cassandra ${String(cass?.['release_version'])}`,
    kafka,
  };
}

async function until(
  probe: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 500,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
