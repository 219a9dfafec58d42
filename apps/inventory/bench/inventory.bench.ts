/**
 * Inventory benchmark: reservations/s and p50/p99 command → reply latency through Kafka, one hot
 * product vs 1,000 products, and the same work done by a bare kafkajs + driver loop. Spawns the built
 * bundle (`node dist/apps/inventory/main.js`, rebuilt through Nx's cache) on private topics and a private database, drives it through Kafka and writes
 * apps/inventory/bench/results.json. Runs under tsx: no Nest DI here.
 *
 *   npm run bench:inventory            (infra from `npm run infra:env`, starts it if needed)
 *   npm run bench:inventory -- --orders=200 --out=/tmp/inventory.json   (a quick check run: fewer
 *                                      orders per scenario, results elsewhere than the committed file)
 *   npm run bench:inventory -- --only='1,000 products, 128' --cpu-prof=/tmp/prof --out=/tmp/i.json
 *                                     (the scenarios whose name contains the text; the service under
 *                                      node --cpu-prof, its profile written to the directory when it stops)
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { createMessage, OutgoingMessage } from '@mw/contracts';
import { KafkaPublisher } from '@mw/messaging';
import { testEnv, uniqueName } from '@mw/testing';
import { replay } from '../src/ledger/ledger';
import { stockKey } from '../src/stock/stock';
import { ReplyTracker } from './replies';

const ROOT = join(__dirname, '../../..');
const BUNDLE = join(ROOT, 'dist/apps/inventory/main.js');
const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ORDERS_PER_SCENARIO = Number(arg('orders') ?? 4000);
const OUT = arg('out') ?? join(__dirname, 'results.json');
const SCENARIO_BUDGET_MS = 30_000;
const ONLY = arg('only');
const CPU_PROF_DIR = arg('cpu-prof');
/** Partitions of the bench topics, all consumed at once by the one instance. */
const PARTITIONS = 8;

interface Scenario {
  readonly name: string;
  readonly products: number;
  /** Commands outstanding at once: 32 measures throughput (latency includes queueing), 1 measures the bare round trip. */
  readonly inFlight: number;
  readonly orders: number;
  /** Served by the bare kafkajs + driver loop instead of the service (the limit beside the figure). */
  readonly bare?: boolean;
}

function infraEnv(): Record<string, string> {
  const out = execFileSync('npm', ['run', '-s', 'infra:env'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/([A-Z_]+)=('([^']*)'|(\S+))/g)) env[m[1]!] = m[3] ?? m[4] ?? '';
  // libs/testing (Kafka credentials, tokens) reads the same settings from this process's environment
  Object.assign(process.env, env);
  if (!env['KAFKA_BROKERS'] || !env['MONGO_URL']) throw new Error(`infra:env gave no KAFKA_BROKERS/MONGO_URL: ${out}`);
  return env;
}

function infraVersions(): string[] {
  try {
    const out = execFileSync('npm', ['run', '-s', 'infra:status'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    return out.split('\n').filter((l) => /^(kafka|mongodb)\s/.test(l)).map((l) => l.replace(/\s{2,}/g, ' | ').trim());
  } catch {
    return [];
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const oid = (prefix: number, n: number): string => `${prefix.toString(16).padStart(8, '0')}${n.toString(16).padStart(16, '0')}`;

async function main(): Promise<void> {
  const infra = infraEnv();
  // The bundle inherits this process's environment (PATH, HOME...) plus its own settings; this is a
  // launcher, not a service, so it does not go through loadConfig.
  const parentEnv = process.env;
  // Always through Nx: its cache makes this instant when the bundle is current, and a stale bundle would measure old code
  execFileSync('npx', ['nx', 'build', 'inventory'], { cwd: ROOT, stdio: 'inherit', env: { ...parentEnv, NX_DAEMON: 'false' } });
  const dbName = uniqueName('inventory_bench');
  const commandsTopic = uniqueName('bench.inventory.commands');
  const eventsTopic = uniqueName('bench.inventory.events');
  const serviceEnv = {
    ...parentEnv,
    ...infra,
    MONGO_DB: dbName,
    KAFKA_GROUP_ID: uniqueName('inventory_bench'),
    INVENTORY_COMMANDS_TOPIC: commandsTopic,
    INVENTORY_EVENTS_TOPIC: eventsTopic,
    HTTP_PORT: String(20_000 + Math.floor(Math.random() * 20_000)),
    LOG_LEVEL: 'warn',
    INVENTORY_MAX_QTY_PER_LINE: '10',
    KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
    KAFKA_PARTITIONS_CONCURRENTLY: String(PARTITIONS),
  };
  const mongo = await createMongoClient(infra['MONGO_URL']!).connect();
  const db = mongo.db(dbName);
  const kafka = new Kafka({ clientId: 'inventory-bench', brokers: infra['KAFKA_BROKERS']!.split(','), sasl: testEnv().kafkaSasl, logLevel: logLevel.NOTHING });
  const publisher = new KafkaPublisher(kafka);
  let child: ChildProcess | undefined;
  /** First reply per order id, and the running scenario's in-flight count (late replies of earlier scenarios not counted). */
  const replies = new ReplyTracker();
  const consumer = kafka.consumer({ groupId: uniqueName('inventory_bench_probe') });
  const results: Record<string, unknown>[] = [];
  try {
    const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
    child = spawn(process.execPath, [...profile, BUNDLE], { env: serviceEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitHttp(`http://127.0.0.1:${serviceEnv.HTTP_PORT}/health/ready`, 90_000);
    await consumer.connect();
    await consumer.subscribe({ topics: [eventsTopic], fromBeginning: true });
    const onReply = (value: Buffer | null): void => {
      const e = JSON.parse(value?.toString() ?? '{}') as { type: string; payload: { order_id?: string } };
      if ((e.type === 'StockReserved' || e.type === 'StockRejected') && e.payload.order_id) replies.reply(e.payload.order_id, e.type, performance.now());
    };
    await consumer.run({ eachMessage: async ({ message }) => onReply(message.value) });
    const bareCommands = uniqueName('bench.bare.commands');
    const bareEvents = uniqueName('bench.bare.events');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [bareCommands, bareEvents].map((topic) => ({ topic, numPartitions: PARTITIONS })), waitForLeaders: true });
    await admin.disconnect();
    const bareProbe = kafka.consumer({ groupId: uniqueName('inventory_bench_bare_probe') });
    await bareProbe.connect();
    await bareProbe.subscribe({ topics: [bareEvents], fromBeginning: true });
    await bareProbe.run({ eachMessage: async ({ message }) => onReply(message.value) });
    const bare = await startBareLoop(kafka, db, bareCommands, bareEvents);
    const scenarios: Scenario[] = [
      { name: 'one hot product', products: 1, inFlight: 32, orders: ORDERS_PER_SCENARIO },
      { name: '1,000 products', products: 1000, inFlight: 32, orders: ORDERS_PER_SCENARIO },
      { name: 'one hot product, 128 in flight', products: 1, inFlight: 128, orders: ORDERS_PER_SCENARIO },
      { name: '1,000 products, 128 in flight', products: 1000, inFlight: 128, orders: ORDERS_PER_SCENARIO },
      { name: 'one hot product, one command at a time (bare latency)', products: 1, inFlight: 1, orders: 25 },
      { name: 'bare kafkajs + driver loop: one hot product, 128 in flight', products: 1, inFlight: 128, orders: ORDERS_PER_SCENARIO, bare: true },
      { name: 'bare kafkajs + driver loop: 1,000 products, 128 in flight', products: 1000, inFlight: 128, orders: ORDERS_PER_SCENARIO, bare: true },
    ];
    for (const [s, scenario] of scenarios.entries()) {
      if (ONLY !== undefined && !scenario.name.includes(ONLY)) continue;
      await seed(db, scenario.products, 0xbe00 + s, scenario.orders);
      results.push(await run(scenario, 0xbe00 + s));
    }
    await bare.stop();
    await bareProbe.disconnect();
    // the bare loop's figure is a limit only if every one of its guarded updates really took a hold
    if (bare.misses() > 0) throw new Error(`bare loop: ${bare.misses()} guarded stock updates matched no document (no hold taken): its rate is not a reservation rate`);
    const rate = (name: string) => Number(results.find((r) => r['scenario'] === name)?.['reservations_per_second'] ?? NaN);
    const ratios = {
      hot_product: Number((rate('one hot product, 128 in flight') / rate('bare kafkajs + driver loop: one hot product, 128 in flight')).toFixed(2)),
      products_1000: Number((rate('1,000 products, 128 in flight') / rate('bare kafkajs + driver loop: 1,000 products, 128 in flight')).toFixed(2)),
    };
    const serverProbe = await probeServer(db);
    const byProduct = await db.collection('stock').find({}).toArray();
    const inconsistent = byProduct.filter((d) => d['available'] < 0 || d['available'] + d['reserved'] + d['committed'] !== d['received'] + d['adjusted']).length;
    const report = {
      command: 'npm run bench:inventory',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, mem_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
      servers: { mongodb: (await mongo.db('admin').command({ buildInfo: 1 }))['version'], infra_status: infraVersions() },
      setup: {
        instances: 1, partitions: PARTITIONS, partitions_consumed_concurrently: PARTITIONS, orders_per_scenario: 'see results[].commands_sent (bounded by scenario_budget_ms)', scenario_budget_ms: SCENARIO_BUDGET_MS,
        note: 'one line per order, qty 1, stock ≥ demand so every command is a successful reservation; the service consumes its commands a partition batch at a time (group commit, ADR 0012 §4); latency = publish of ReserveStock → StockReserved/StockRejected seen by a consumer (includes outbox relay and Kafka); MongoDB is a 3-member mongod replica set on this machine (writes w:majority, ADR 0003); Kafka, Cassandra and the other engineers\' processes share the 2 CPUs',
      },
      server_probe_after_run: serverProbe,
      results,
      service_to_bare_loop_ratio: ratios,
      bare_loop: 'the same command and reply messages on topics with the same partitions, consumed with the same partition concurrency, batched as the service batches (per fetched partition batch, all w:majority): one insert of the reservations, one unordered bulkWrite of the conditional $inc/$push holds with their ledger entries (one update per stock document, as the service merges them), one bulkWrite setting the reservations reserved with their outbox entries, one send of the replies, one update clearing the outbox entries',
      stock_documents_violating_invariant: inconsistent,
    };
    writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report, null, 2));

    async function run(scenario: Scenario, prefix: number): Promise<Record<string, unknown>> {
      replies.begin();
      const sent = replies.sentNow;
      const deadline = Date.now() + SCENARIO_BUDGET_MS;
      const started = performance.now();
      const missesBefore = bare.misses();
      const topic = scenario.bare ? bareCommands : commandsTopic;
      let next = 0;
      while (next < scenario.orders && Date.now() < deadline) {
        const outstanding = replies.outstanding;
        if (outstanding >= scenario.inFlight) {
          await sleep(2);
          continue;
        }
        const batch: OutgoingMessage[] = [];
        for (; batch.length < scenario.inFlight - outstanding && next < scenario.orders; next++) {
          const id = oid(prefix, next);
          const product = oid(prefix, 1_000_000 + (next % scenario.products));
          const msg = createMessage('inventory.commands.v1', 'ReserveStock', { order_id: id, zone: 'MSK', lines: [{ product_id: product, qty: 1 }], hold_seconds: 900 }, { correlation_id: randomUUID(), causation_id: null });
          batch.push({ ...msg, topic } as OutgoingMessage);
          replies.sent(id, performance.now());
        }
        await publisher.publishAll(batch);
      }
      while (replies.outstanding > 0 && Date.now() < deadline + 30_000) await sleep(10);
      replies.end();
      const latencies = [...sent].flatMap(([id, t]) => { const r = replies.replyTo(id); return r ? [r.at - t] : []; }).sort((a, b) => a - b);
      const reserved = [...sent.keys()].filter((id) => replies.replyTo(id)?.type === 'StockReserved').length;
      const last = Math.max(...[...sent.keys()].map((id) => replies.replyTo(id)?.at ?? 0));
      const r = {
        scenario: scenario.name,
        products: scenario.products,
        in_flight: scenario.inFlight,
        commands_sent: sent.size,
        replies: latencies.length,
        rejected: latencies.length - reserved,
        ...(scenario.bare ? { guarded_updates_unmatched: bare.misses() - missesBefore } : {}),
        seconds: Number(((last - started) / 1000).toFixed(2)),
        // reservations made, not replies: a rejection is not a reservation
        reservations_per_second: Number((reserved / ((last - started) / 1000)).toFixed(1)),
        latency_ms: { p50: Math.round(pct(latencies, 50)), p90: Math.round(pct(latencies, 90)), p99: Math.round(pct(latencies, 99)), max: Math.round(latencies.at(-1) ?? NaN) },
      };
      console.log(JSON.stringify(r));
      return r;
    }
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await publisher.disconnect().catch(() => undefined);
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
}

/**
 * The limit beside the service's figure: the same messages and the same hot-path writes, with no
 * framework, validation, outbox relay or background loops — kafkajs and the driver only.
 */
async function startBareLoop(kafka: Kafka, db: ReturnType<MongoClient['db']>, commandsTopic: string, eventsTopic: string): Promise<{ stop: () => Promise<void>; misses: () => number }> {
  const majority = { writeConcern: { w: 'majority' as const } };
  const reservations = db.collection<{ _id: string; status: string; _outbox?: unknown[] }>('bare_reservations');
  const stock = db.collection<{ _id: string }>('stock');
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId: uniqueName('bare_loop') });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [commandsTopic], fromBeginning: true });
  let misses = 0;
  await consumer.run({
    partitionsConsumedConcurrently: PARTITIONS,
    // batched as the service batches (group commit, ADR 0012 §4): per fetched partition batch one
    // insert of the reservations, one bulkWrite of the holds, one of the transitions, one send, one pull
    eachBatch: async ({ batch }) => {
      const commands = batch.messages.map((m) => JSON.parse(m.value!.toString()) as { id: string; payload: { order_id: string; zone: string; lines: { product_id: string; qty: number }[]; hold_seconds: number } });
      if (commands.length === 0) return;
      const now = new Date();
      await reservations.insertMany(commands.map(({ payload }) => ({ _id: payload.order_id, status: 'reserving', lines: payload.lines, zone: payload.zone, created_at: now })) as never[], { ...majority, ordered: false });
      // one update per stock document, as the service merges a batch's holds on one document
      const byDoc = new Map<string, { order_id: string; qty: number; expires_at: Date }[]>();
      for (const { payload } of commands)
        for (const l of payload.lines) {
          const key = stockKey(l.product_id, payload.zone);
          byDoc.set(key, [...(byDoc.get(key) ?? []), { order_id: payload.order_id, qty: l.qty, expires_at: new Date(now.getTime() + payload.hold_seconds * 1000) }]);
        }
      const holds = [...byDoc].map(([_id, hs]) => {
        const units = hs.reduce((n, h) => n + h.qty, 0);
        return {
          updateOne: {
            filter: { _id, available: { $gte: units }, 'reservations.order_id': { $nin: hs.map((h) => h.order_id) } },
            update: { $inc: { available: -units, reserved: units, version: hs.length }, $set: { updated_at: now, level_dirty: true }, $push: { reservations: { $each: hs }, _ledger: { $each: hs.map((h) => ({ _id: randomUUID(), kind: 'reserve', qty: h.qty, at: now })) } } },
          },
        };
      });
      const res = await stock.bulkWrite(holds as never[], { ...majority, ordered: false });
      // a guard that did not match took no hold: the figure would not be a reservation rate (checked after the run)
      misses += holds.length - res.matchedCount;
      const replies = commands.map(({ id, payload }) => ({ id, order_id: payload.order_id, value: JSON.stringify({ id: randomUUID(), type: 'StockReserved', version: 1, occurred_at: now.toISOString(), correlation_id: id, causation_id: id, payload: { order_id: payload.order_id } }) }));
      await reservations.bulkWrite(replies.map((r) => ({ updateOne: { filter: { _id: r.order_id, status: 'reserving' }, update: { $set: { status: 'reserved', updated_at: now }, $push: { _outbox: { id: r.id, envelope: r.value, created_at: now } } } } })) as never[], { ...majority, ordered: false });
      await producer.send({ topic: eventsTopic, messages: replies.map((r) => ({ key: r.order_id, value: r.value })) });
      await reservations.updateMany({ _id: { $in: replies.map((r) => r.order_id) } }, { $set: { _outbox: [] } }, majority);
    },
  });
  return {
    stop: async () => {
      await consumer.disconnect();
      await producer.disconnect();
    },
    misses: () => misses,
  };
}

/** Stock documents inserted directly (with their restock ledger entries) so seeding 1,000 products is quick. */
async function seed(db: ReturnType<MongoClient['db']>, products: number, prefix: number, orders: number): Promise<void> {
  const now = new Date();
  const perProduct = Math.ceil(orders / products) + 10;
  const docs = Array.from({ length: products }, (_, i) => {
    const productId = oid(prefix, 1_000_000 + i);
    const entry = { _id: randomUUID(), product_id: productId, zone: 'MSK', kind: 'restock' as const, qty: perProduct, reason: 'bench', at: now };
    return { _id: stockKey(productId, 'MSK'), product_id: productId, zone: 'MSK', ...replay([entry]), reservations: [], version: 1, created_at: now, updated_at: now, _ledger: [entry] };
  });
  for (let i = 0; i < docs.length; i += 500) await db.collection('stock').insertMany(docs.slice(i, i + 500) as never[]);
}

/** What one round trip to the MongoDB server costs right now (the machine and server are shared). */
async function probeServer(db: ReturnType<MongoClient['db']>): Promise<{ update_one_ms: number; find_one_ms: number; load_average_1m: number }> {
  const c = db.collection<{ _id: string; n: number }>('probe');
  await c.insertOne({ _id: 'p', n: 0 });
  let t = performance.now();
  for (let i = 0; i < 50; i++) await c.updateOne({ _id: 'p' }, { $inc: { n: 1 } });
  const update = (performance.now() - t) / 50;
  t = performance.now();
  for (let i = 0; i < 50; i++) await c.findOne({ _id: 'p' });
  const find = (performance.now() - t) / 50;
  return { update_one_ms: Number(update.toFixed(1)), find_one_ms: Number(find.toFixed(1)), load_average_1m: Number((os.loadavg()[0] ?? 0).toFixed(2)) };
}

async function waitHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(500);
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
