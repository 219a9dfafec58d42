/**
 * Checkout benchmark (issue #17): sustained confirmed checkouts/s and p50/p99/max from
 * `POST /carts/{id}/checkout` to the order's terminal event at 16 / 64 / 256 checkouts in flight,
 * with inventory, carts and orders running as processes from their built bundles (as `npm start`
 * runs them) on private topics, databases, keyspace and consumer groups; each level also reports
 * the CPU seconds per checkout of every process (each service, every mongod member, Kafka,
 * Cassandra, this driver — from /proc) and the MongoDB / Cassandra / Kafka operations per checkout
 * (an idle baseline measured before each level subtracted). The whole run is made once per MongoDB
 * replica-set size (`--mongo-members=3,1`: the shared infrastructure's set, and a private one
 * started for the run with `MONGO_MEMBERS`), so a reader sees what the replica set costs.
 *
 * Beside it, with the services stopped, a bare loop — kafkajs + mongodb driver + cassandra-driver —
 * does per checkout the same Kafka messages and MongoDB / Cassandra operations the services were
 * counted doing, plus the two PSP calls' latency, at the highest concurrency: the limit the servers
 * set for this work. And the floor (bench/floor.ts): the minimum durable work of a checkout,
 * group-committed per stage as the services batch, its CPU per checkout beside theirs
 * (`services ÷ floor`). Before the measured levels a warm-up level (`--warmup=<checkouts>`, 300 at
 * 64 in flight, not reported) brings the JVM servers and the services' code to temperature: a fresh
 * Cassandra costs ~3× the CPU per write of a warm one. It goes on in blocks of 100 while the JVMs'
 * JIT compilers still take ≥ 5 % of the stack's CPU (`--warm-until-jit=<percent>`, at most
 * `--warmup-max=2000`). A measured level at another concurrency gets 200 unreported checkouts at its
 * own first (`--level-warmup=<n>`): the JVMs compile again for it. After the warm-up Cassandra is
 * flushed and compacted until nothing is pending, so no compaction of earlier data falls into a
 * level (local node; `cassandra_compaction`). Each level and the floor report the machine's busy, idle and stolen share of
 * both cores (`host_cpu`: steal is the hypervisor's). Results: apps/orders/bench/results.json.
 *
 *   npm run bench:checkout            (starts the infrastructure it needs: `npm run infra:up`, idempotent)
 *   npm run bench:checkout -- --runs=3 --fresh-servers   (three runs, Kafka, Cassandra and MongoDB restarted before
 *                                     each — the reproducibility check: a figure counts when the runs agree within ±20 %)
 *   npm run bench:checkout -- --waves=5   (a level runs at least 5 × its concurrency checkouts: 1,280 at 256 in flight, a steady state)
 *   npm run bench:checkout -- --partitions=12   (every saga topic with 12 partitions instead of the registry's 3)
 *   npm run bench:checkout -- --cpu-prof=/tmp/prof   (the services under node --cpu-prof; profiles written when they stop)
 *   npm run bench:checkout -- --log-level=info   (the services at their default log level; the bench runs them at warn)
 * Each level's `latency_by_hop_ms` splits a confirmed checkout's time by hop (bench/hops.ts).
 *   npm run bench:checkout -- --rate=20 --levels=64   (open loop: 20 checkouts started per second, at most 64 in flight,
 *                                     ADR 0015 §9)
 *   npm run bench:checkout -- --checkouts=40 --levels=16 --mongo-members=3 --customers=20 --out=/tmp/checkout.json
 *                                     (a quick check run; never overwrites the committed results)
 *   npm run bench:checkout -- --topology=cluster   (root: the same levels on the cluster topology of issue 32 —
 *                                     3 brokers RF 3 min ISR 2, 3 Cassandra nodes RF 3, the replica set, each on a
 *                                     network host of its own, started with `npm run cluster -- up` if down; the
 *                                     services on this host reach it over the bridge. Its own results file,
 *                                     results-cluster.json; no bare loop nor floor there: those are the single node's)
 *
 * Customers are real Keycloak users made by the bench (deleted at the end); every HTTP call carries
 * a real access token. Carts (1–3 lines over 200 products) are created before the clock starts.
 * The services' per-caller limits are lifted (a few hundred customers write thousands of times a
 * minute here); everything else runs with its defaults, the PSP simulator at its realistic latency
 * (20–150 ms per call) without injected failures.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Client as CassandraClient, policies as cassandraPolicies, types as cassandraTypes } from 'cassandra-driver';
import { Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import { MongoClient, WriteConcern } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { createMessage } from '@mw/contracts';
import { accessToken, createTestUsers, deleteTestUsers, type TestUser, testEnv, testUserToken, uniqueName, cpuSeconds, hostCpu, hostCpuShares, hostSpeed, infraServerPid, treeCpuSeconds, threadCpu, threadCpuDelta, type ThreadCpu, treeThreadCpu } from '@mw/testing';
import { type ApplyCounters, applyCountersOf, applyPerCheckout, commandsPerCheckout, type Counters, hostsOf, diffCounters, type LevelCounts, perCheckout, roundCounters } from './counters';
import { floorLoop } from './floor';
import { byCollectionPerCheckout, oplogBetween, oplogByCollection, oplogEnd, perCheckoutOf } from './oplog';
import { HopClock, pct } from './hops';
import { paced, pool } from './pacing';

const ROOT = join(__dirname, '../../..');
const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** `--topology=cluster`: the servers of `npm run cluster` (ADR 0062) instead of the single node's. */
const TOPOLOGY = arg('topology') ?? 'local';
if (TOPOLOGY !== 'local' && TOPOLOGY !== 'cluster') throw new Error(`--topology=${TOPOLOGY}: local or cluster`);
const CLUSTER = TOPOLOGY === 'cluster';
const list = (v: string): number[] => v.split(',').map((x) => Number(x.trim()));
const LEVELS = list(arg('levels') ?? '16,64,256');
const CHECKOUTS_PER_LEVEL = Number(arg('checkouts') ?? 600);
/**
 * `--waves=<n>` (default 0: off): a level runs at least n × its concurrency checkouts. A closed loop
 * of 400 checkouts at 256 in flight is one wave of 256 and its tail (7–10 s at a p50 of 3–5 s), never
 * a steady state: whether the stages' groups fill during that one wave decided its cost, and three
 * runs from fresh servers spread 0.43 (history/2026-12-06-15e06b7.json).
 */
const WAVES = Number(arg('waves') ?? 0);
if (!Number.isInteger(WAVES) || WAVES < 0) throw new Error(`--waves=${arg('waves')}: a whole number ≥ 0`);
/** The checkouts a level at `concurrency` runs (and the floor at the top concurrency). */
const checkoutsAt = (concurrency: number): number => Math.max(CHECKOUTS_PER_LEVEL, WAVES * concurrency);
const MONGO_MEMBERS = list(arg('mongo-members') ?? (CLUSTER ? '3' : '3,1'));
const CUSTOMERS = Number(arg('customers') ?? 200);
/** Partitions of every saga topic (the registry's topics have 3; `--partitions=12` measures more). */
const PARTITIONS = Number(arg('partitions') ?? 3);
/** `--out=<file>`: a check run writes elsewhere than the committed results. */
const OUT = arg('out') ?? join(__dirname, CLUSTER ? 'results-cluster.json' : 'results.json');
/** `--cpu-prof=<dir>`: each service runs under `node --cpu-prof`, its profile written to <dir> when it stops. */
const CPU_PROF_DIR = arg('cpu-prof');
/** `--dist=<dir>`: run the services' bundles from another build (an A/B against an earlier commit's `dist/`); not rebuilt. */
const DIST = arg('dist');
/**
 * `--log-level=<level>` (default warn): the services' LOG_LEVEL. `info` is the services' default
 * and the compose stack's; warn keeps a CPU figure free of log volume. Each level reports the log
 * lines per checkout each service wrote (`log_lines_per_checkout`) either way.
 */
const LOG_LEVEL = arg('log-level') ?? 'warn';
/**
 * `--rate=<checkouts/s>`: open-loop arrivals for the measured levels — a checkout starts every
 * 1/rate s whether or not earlier ones finished, the level's concurrency only a cap on those in
 * flight (ADR 0015 §9): arrivals as a shop sees them, evenly spread instead of the closed loop's
 * waves. In the closed loop (the default) the stack runs both cores flat at every level, and a
 * level's CPU per checkout is its CPU per second shared among the checkouts it finished; the open
 * loop was meant to count work below saturation, but on 2026-12-02 it found the stack at ~1.8
 * cores even at 5/s (bench/ab/2026-12-02-open-loop-curve.json).
 */
const RATE = arg('rate') === undefined ? undefined : Number(arg('rate'));
if (RATE !== undefined && !(RATE > 0)) throw new Error(`--rate=${arg('rate')}: checkouts per second, > 0`);
const LEVEL_BUDGET_MS = 120_000;
/** A customer's token is renewed before a level unless it stays valid this long (the level and its trailing work). */
const TOKEN_VALID_FOR_MS = LEVEL_BUDGET_MS + 60_000;
/** `--warmup=<n>`: checkouts of the warm-up level (64 in flight, not reported); 0 skips it. */
const WARMUP_CHECKOUTS = Number(arg('warmup') ?? 300);
const WARMUP_CONCURRENCY = 64;
/**
 * `--warm-until-jit=<percent>` (default 5): after the `--warmup` checkouts, the warm-up goes on in
 * blocks of `WARMUP_BLOCK` until the JVM servers' JIT compiler threads (Kafka's and Cassandra's
 * `C1`/`C2` threads) take less than this share of the stack's CPU in a block, or `--warmup-max`
 * checkouts were made. A fixed count left them compiling: 10–16 CPU-ms per checkout, ~10 % of the
 * stack, at the first measured level after 700 (bench/history/2026-12-02-a5edbc8-*.json); from
 * fresh servers they spent 20 ms per checkout over the first 300 and still 3–7 ms after 1,200
 * (2026-12-02). 0 turns it off.
 */
const WARM_UNTIL_JIT_PERCENT = Number(arg('warm-until-jit') ?? 5);
const WARMUP_MAX = Math.max(WARMUP_CHECKOUTS, Number(arg('warmup-max') ?? 2000));
const WARMUP_BLOCK = 100;
/**
 * `--level-warmup=<n>` (default 200): before a measured level whose concurrency is not the warm-up's,
 * this many checkouts at the level's own concurrency, not reported (their JIT share is in `warmup`).
 * The JVMs compile again for a new concurrency: after a warm-up that ended below 5 % at 64 in
 * flight, Cassandra's JIT still took 3.7–6.4 CPU-ms per checkout in the level at 256
 * (bench/history/2026-12-02-eee8b9b.json). 0 turns it off.
 */
const LEVEL_WARMUP = Number(arg('level-warmup') ?? 200);
const JIT_THREADS = /Compiler/;
const JVM_SERVERS = ['kafka', 'cassandra'] as const;
/** `--runs=<n>`: the whole measurement this many times per replica-set size; `--fresh-servers` restarts Kafka, Cassandra and MongoDB before each. */
const RUNS = Number(arg('runs') ?? 1);
const FRESH_SERVERS = process.argv.includes('--fresh-servers');
/**
 * A quiet window before each level (nothing in flight): what the idle services' pollers, sweepers
 * and relays cost per second is measured there and subtracted from the level's counts, so
 * "operations per checkout" counts the checkouts' own work only. The first one is longer: it is
 * also the idle CPU figure of the stack.
 */
const IDLE_WINDOW_MS = 5000;
const FIRST_IDLE_WINDOW_MS = 20_000;
/**
 * `--idle-settle=<s>` (default 15): the wait between the setup (customers, carts: thousands of
 * writes) and the first quiet window, so the idle figure is the stack at rest and not the servers
 * finishing the setup's work (checkpoints, replication, relays) — with 3 s it varied 19–34 %.
 */
const IDLE_SETTLE_MS = Number(arg('idle-settle') ?? 15) * 1000;
const PRODUCTS = 200;
const CATEGORY = '65f0000000000000000000c1';
/** Private single-purpose MongoDB for a replica-set size the shared infrastructure does not have. */
const PRIVATE_MONGO_PORT = 27_417;

type Service = 'inventory' | 'carts' | 'orders';
interface Sample {
  readonly latencyMs: number;
  readonly httpMs: number;
  readonly outcome: string;
  readonly cartId: string;
  /** Wall clock (ms) when the POST was sent and when the terminal event was seen: the hops are timed against the producers' clocks. */
  readonly sentAt: number;
  readonly seenAt: number;
}

function infraEnv(extra: Record<string, string> = {}): Record<string, string> {
  const command = CLUSTER ? ['run', '-s', 'cluster', '--', 'env'] : ['run', '-s', 'infra:env'];
  const out = execFileSync('npm', command, { cwd: ROOT, encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...extra } });
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/([A-Z_]+)=('([^']*)'|(\S+))/g)) env[m[1]!] = m[3] ?? m[4] ?? '';
  if (!env['KAFKA_BROKERS'] || !env['MONGO_URL'] || !env['CASSANDRA_CONTACT_POINTS'] || !env['OIDC_ISSUER']) throw new Error(`${command.join(' ')} incomplete: ${out}`);
  // the single node's loopback, or the cluster's hosts in the benchmarking range (198.18.0.0/15) — never anything else
  const allowed = CLUSTER ? /^(?:[a-z]+:\/\/)?(?:[^@/]*@)?198\.1[89]\.\d+\.\d+/ : /127\.0\.0\.1|localhost/;
  for (const k of ['KAFKA_BROKERS', 'MONGO_URL', 'CASSANDRA_CONTACT_POINTS', 'OIDC_ISSUER']) {
    const values = k === 'MONGO_URL' ? [env[k]!] : env[k]!.split(',');
    if (!values.every((v) => allowed.test(v))) throw new Error(`${k}=${env[k]}: the benchmark targets ${CLUSTER ? '198.18.0.0/15 (the cluster topology)' : '127.0.0.1'} only`);
  }
  return env;
}

/** The services' tuning knobs set in this process's environment (the services inherit it). */
function tuningSettings(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => /^(KAFKA_CONSUMER_|KAFKA_COMMIT_|OUTBOX_|SAGA_|PAYMENT_|INVENTORY_|CARTS_|RELAY_|CHECKOUT_)/.test(e[0]) && e[1] !== undefined).sort(([a], [b]) => a.localeCompare(b)));
}

/** The replica set's settings that move what a checkout costs, as the primary reports them (ADR 0015 §8). */
async function mongodParameters(mongo: MongoClient): Promise<Record<string, unknown>> {
  const names = ['oplogBatchDelayMillis', 'transactionLifetimeLimitSeconds', 'replWriterThreadCount'];
  const got = await mongo.db('admin').command({ getParameter: 1, ...Object.fromEntries(names.map((n) => [n, 1])) });
  return Object.fromEntries(names.map((n) => [n, got[n]]));
}

/** Where tools/infra keeps the local servers' pid files: INFRA_DIR, else `.infra`. */
const localInfraDir = (): string => process.env['INFRA_DIR'] ?? join(ROOT, '.infra');

/** The timer slack Cassandra's threads run with, in µs (ADR 0015 §16): read from the node's process (a cluster's first node). */
function cassandraTimerSlackUs(): number | undefined {
  const pid = CLUSTER ? infraServerPid(join(localInfraDir(), 'cluster'), 'cassandra-1') : infraServerPid(localInfraDir(), 'cassandra');
  try {
    return pid ? Number(readFileSync(`/proc/${pid}/timerslack_ns`, 'utf8')) / 1000 : undefined;
  } catch {
    return undefined; // not Linux, or the process is gone: the report says nothing rather than a guess
  }
}

function previousNotes(): unknown {
  try {
    // the notes of the file this run replaces (the cluster's results have their own)
    return (JSON.parse(readFileSync(join(__dirname, CLUSTER ? 'results-cluster.json' : 'results.json'), 'utf8')) as { notes?: unknown }).notes ?? [];
  } catch {
    return [];
  }
}

function infraVersions(): string[] {
  try {
    const out = execFileSync('npm', CLUSTER ? ['run', '-s', 'cluster', '--', 'status'] : ['run', '-s', 'infra:status'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    if (CLUSTER) return out.split('\n').filter((l) => /^(kafka|cassandra|mongodb)-\d/.test(l.trim())).map((l) => l.replace(/\s{2,}/g, ' | ').trim());
    return out.split('\n').filter((l) => /^(kafka|cassandra|mongodb)\s/.test(l)).map((l) => l.replace(/\s{2,}/g, ' | ').trim());
  } catch {
    return [];
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Newlines in a chunk of a child's output. */
function countLines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}
const round = (n: number, d = 1) => Number(n.toFixed(d));

async function waitHttp(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(500);
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- CPU of every process, from /proc

/** Every mongod on this machine by its --port. */
function mongodPids(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (!cmd[0]?.endsWith('/mongod')) continue;
      const port = Number(cmd[cmd.indexOf('--port') + 1]);
      if (port) out.set(port, Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/** The processes whose CPU is reported: the services, the mongod members of `mongoUrl`, Kafka, Cassandra, this driver. */
function measuredProcesses(children: ReadonlyMap<Service, ChildProcess>, mongoUrl: string): Record<string, number> {
  const infraDir = localInfraDir();
  const procs: Record<string, number> = {};
  for (const [s, c] of children) if (c.pid) procs[s] = c.pid;
  if (CLUSTER) {
    // each server host's recorded pid (a mongod member's is its supervisor script: counted with its descendants, cpuOf)
    for (const host of CLUSTER_SERVER_HOSTS) {
      const pid = infraServerPid(join(infraDir, 'cluster'), host);
      if (!pid) throw new Error(`cluster host ${host} is not running (npm run cluster -- status)`);
      procs[host] = pid;
    }
    procs['bench driver'] = process.pid;
    return procs;
  }
  const mongods = mongodPids();
  for (const port of [...mongoUrl.matchAll(/:(\d+)/g)].map((m) => Number(m[1]))) {
    const pid = mongods.get(port);
    if (pid) procs[`mongod:${port}`] = pid;
  }
  for (const server of ['kafka', 'cassandra']) {
    const pid = infraServerPid(infraDir, server);
    if (pid) procs[server] = pid;
  }
  procs['bench driver'] = process.pid;
  return procs;
}

const CLUSTER_SERVER_HOSTS = ['kafka-1', 'kafka-2', 'kafka-3', 'cassandra-1', 'cassandra-2', 'cassandra-3', 'mongodb-1', 'mongodb-2', 'mongodb-3'];
/** A cluster mongod member is read with its descendants: its recorded pid is its supervisor script's. */
const underSupervisor = (k: string): boolean => CLUSTER && k.startsWith('mongodb-');
const cpuOf = (procs: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, underSupervisor(k) ? treeCpuSeconds(pid) : cpuSeconds(pid)]));
/** Each measured process's threads by group (`threadCpu`), read as `cpuOf` reads the process: where inside a server the CPU goes. */
const threadsOf = (procs: Record<string, number>): Record<string, ThreadCpu> => Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, underSupervisor(k) ? treeThreadCpu(pid) : threadCpu(pid)]));
/** Thread groups shown per process in a level row, and the least CPU per checkout a shown group has. */
const THREAD_GROUPS_SHOWN = 6;
const THREAD_MIN_CPU_S = 0.0001;

// ---------------------------------------------------------------- MongoDB of a given replica-set size

/** The MongoDB URL for `members`: the shared infrastructure's when its size matches, else a private one started for the run. */
async function mongoFor(members: number, shared: string): Promise<{ url: string; stop: () => void }> {
  const sharedMembers = shared.replace(/^mongodb:\/\//, '').split('/')[0]!.split(',').length;
  if (sharedMembers === members) return { url: shared, stop: () => undefined };
  const env = { ...process.env, INFRA_DIR: join(ROOT, '.infra', `bench-mongo-${members}`), MONGO_PORT: String(PRIVATE_MONGO_PORT), MONGO_MEMBERS: String(members) };
  console.log(`[bench] starting a private ${members}-member MongoDB on :${PRIVATE_MONGO_PORT}`);
  execFileSync('npm', ['run', '-s', 'infra:up', '--', 'mongodb'], { cwd: ROOT, stdio: 'inherit', env, timeout: 300_000 });
  const url = infraEnv({ INFRA_DIR: env.INFRA_DIR, MONGO_PORT: env.MONGO_PORT, MONGO_MEMBERS: env.MONGO_MEMBERS })['MONGO_URL']!;
  return {
    url,
    stop: () => execFileSync('npm', ['run', '-s', 'infra:down', '--', 'mongodb'], { cwd: ROOT, stdio: 'inherit', env, timeout: 120_000 }),
  };
}

const BENCH_SERVERS = ['kafka', 'cassandra', 'mongodb', 'keycloak'];

/** The servers the benchmark needs, started when they are not up (idempotent; `npm run infra:up`). */
function infraUp(): void {
  if (CLUSTER) {
    execFileSync('npm', ['run', '-s', 'cluster', '--', 'up'], { cwd: ROOT, stdio: 'inherit', timeout: 1_800_000 });
    return;
  }
  execFileSync('npm', ['run', '-s', 'infra:up', '--', ...BENCH_SERVERS], { cwd: ROOT, stdio: 'inherit', timeout: 900_000 });
}

/** Kafka, Cassandra and MongoDB restarted: a run from fresh servers (their data directories kept). */
function restartServers(): void {
  const servers = ['kafka', 'cassandra', 'mongodb'];
  console.log(`[bench] restarting ${servers.join(', ')} for a run from fresh servers`);
  execFileSync('npm', ['run', '-s', 'infra:down', '--', ...servers], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
  infraUp();
}

/**
 * Cassandra's compaction debt paid before the measured levels (local single node): a flush, a major
 * compaction of every keyspace, then `compactionstats` until no task is pending. `--fresh-servers`
 * restarts the node on what earlier runs wrote (system tables, the Paxos state of their LWTs) and
 * the warm-up adds its own sstables: a compaction of either fell into a level at random (4.6 CPU-ms
 * per checkout in two of three runs at 256 in flight, history/2026-12-02-13ebee3.json).
 */
/** nodetool reaches only a single node tools/infra runs here (its pid file): not the cluster's, a container's or an external one. */
const compactsCassandra = (): boolean => !CLUSTER && infraServerPid(localInfraDir(), 'cassandra') !== undefined;

async function settleCassandraCompaction(): Promise<Record<string, number>> {
  const started = performance.now();
  const nodetool = (...args: string[]): string => execFileSync('npm', ['run', '-s', 'infra:nodetool', '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  nodetool('flush');
  nodetool('compact');
  const pendingNow = (): number => Number(/pending tasks\s+(\d+)/.exec(nodetool('compactionstats'))?.[1] ?? NaN);
  let pending = pendingNow();
  for (let i = 0; i < 60 && pending !== 0; i++) {
    await sleep(2000);
    pending = pendingNow();
  }
  if (pending !== 0) throw new Error(`Cassandra still has ${pending} compaction tasks pending after its major compaction`);
  return { seconds: round((performance.now() - started) / 1000, 1), pending_tasks_after: pending };
}

async function main(): Promise<void> {
  if (CLUSTER && FRESH_SERVERS) throw new Error('--fresh-servers restarts the single node; on the cluster run `npm run cluster -- down` before each run');
  if (CLUSTER && MONGO_MEMBERS.some((m) => m !== 3)) throw new Error('--topology=cluster has a 3-member replica set: --mongo-members=3');
  infraUp();
  const infra = infraEnv();
  // libs/testing (Kafka credentials, Keycloak users and tokens) reads the same settings from this process's environment
  Object.assign(process.env, infra);
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  // always through Nx: its cache makes this instant when the bundles are current
  if (!DIST) execFileSync('npx', ['nx', 'run-many', '-t', 'build', '--projects=inventory,carts,orders', '--parallel=1'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } });
  const run = uniqueName('cobench').toLowerCase();
  console.log(`[bench] creating ${CUSTOMERS} Keycloak customers`);
  const customers = await createTestUsers(`bench-${run}`, CUSTOMERS);
  const runs: (RunResult & { run: number })[] = [];
  try {
    for (let r = 1; r <= RUNS; r++) {
      for (const members of MONGO_MEMBERS) {
        if (FRESH_SERVERS) restartServers();
        const mongoDb = await mongoFor(members, infra['MONGO_URL']!);
        try {
          runs.push({ ...(await measure({ ...infra, MONGO_URL: mongoDb.url }, members, `${run}r${r}m${members}`, customers)), run: r });
        } finally {
          mongoDb.stop();
        }
      }
    }
  } finally {
    await deleteTestUsers(customers);
  }
  const mongo = await createMongoClient(infra['MONGO_URL']!).connect();
  const cassandra = new CassandraClient({ contactPoints: infra['CASSANDRA_CONTACT_POINTS']!.split(','), localDataCenter: infra['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1' });
  try {
    const report = {
      command: `npm run bench:checkout${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, mem_gb: Math.round(os.totalmem() / 2 ** 30), load_average_at_start: loadAtStart, load_average_at_end: os.loadavg().map((l) => round(l, 2)), node: process.version, platform: `${os.platform()} ${os.release()}` },
      servers: { mongodb: (await mongo.db('admin').command({ buildInfo: 1 }))['version'], mongod_parameters: await mongodParameters(mongo), cassandra_timer_slack_us: cassandraTimerSlackUs(), cassandra: (await cassandra.execute('SELECT release_version FROM system.local')).first()?.['release_version'], infra_status: infraVersions() },
      setup: {
        topology: CLUSTER
          ? 'cluster (ADR 0062): 3 Kafka brokers (KRaft, topics RF 3, min ISR 2), 3 Cassandra nodes (keyspace RF 3, LOCAL_QUORUM), the 3-member replica set, each in a network namespace of its own on the bridge mw-br0 (198.18.0.0/24); the services on this host, over the bridge'
          : 'local: one Kafka broker, one Cassandra node, the replica set, all on 127.0.0.1',
        services: 'inventory, carts, orders: one process each from dist/apps/*/main.js (NODE_ENV=production, defaults except private names, lifted per-caller limits, simulator failures 0)',
        log_level: LOG_LEVEL,
        // settings of the services given in the bench's environment (an A/B of a tuning knob): none for the defaults
        service_settings: tuningSettings(),
        ...(DIST ? { bundles: DIST } : {}),
        customers: CUSTOMERS,
        products: PRODUCTS,
        partitions_per_topic: PARTITIONS,
        levels: LEVELS,
        ...(RATE === undefined ? {} : { offered_per_s: RATE }),
        checkouts_per_level: WAVES > 0 ? Object.fromEntries(LEVELS.map((c) => [c, checkoutsAt(c)])) : CHECKOUTS_PER_LEVEL,
        level_budget_ms: LEVEL_BUDGET_MS,
        mongo_members: MONGO_MEMBERS,
        cart: '1–3 lines (qty 1 each) over 200 products, zone MSK; carts created before the measurement, spread over the customers',
        auth: `every call with a real Keycloak access token: ${CUSTOMERS} customers made by the bench own the carts, stan restocks`,
        latency:
          RATE === undefined
            ? 'POST /carts/{id}/checkout sent → OrderConfirmed/OrderCancelled seen on the orders topic by a consumer (closed loop: `concurrency` checkouts in flight)'
            : `POST /carts/{id}/checkout sent → OrderConfirmed/OrderCancelled seen on the orders topic by a consumer (open loop: ${RATE} checkouts started per second, at most \`concurrency\` in flight)`,
        payment_simulator_latency_ms: '20–150 per call (one sale per checkout)',
        per_checkout_ops: `each level's MongoDB (top per namespace of the run's databases) / Cassandra (system_views of the run's keyspace) / Kafka (messages on the saga topics) counts minus an idle baseline measured in a ${IDLE_WINDOW_MS / 1000} s quiet window before it, divided by its checkouts`,
        cpu_seconds_per_checkout: 'utime+stime from /proc/<pid>/stat of each process over the level, divided by its checkouts (not idle-subtracted: what a checkout costs on a running stack)',
        cassandra_compaction: !compactsCassandra() ? 'not touched (not a node tools/infra runs on this host)' : 'after the warm-up, before the levels: nodetool flush and compact (every keyspace), then compactionstats until 0 pending (`cassandra_compaction` per run)',
        idle_cpu: `the first quiet window (${FIRST_IDLE_WINDOW_MS / 1000} s, services up, nothing in flight, ${IDLE_SETTLE_MS / 1000} s after the setup): percent of one core per process`,
      },
      // one row per run, replica-set size and level; `run` and `mongo_members` tell them apart
      results: runs.flatMap((r) => r.rows.map((row) => ({ run: r.run, ...row }))),
      idle: Object.fromEntries(runs.map((r) => [runKey(r), r.idle])),
      // the warm-up of each run, block by block, until the JVM servers' JIT compilers settled (--warm-until-jit)
      warmup: Object.fromEntries(runs.map((r) => [runKey(r), r.warmup])),
      // Cassandra flushed and compacted after each run's warm-up, before its levels (settleCassandraCompaction)
      cassandra_compaction: Object.fromEntries(runs.map((r) => [runKey(r), r.cassandraCompaction])),
      bare_loop: Object.fromEntries(runs.map((r) => [runKey(r), r.bare])),
      ratio_service_to_bare: Object.fromEntries(runs.map((r) => [runKey(r), r.ratio])),
      floor: Object.fromEntries(runs.map((r) => [runKey(r), r.floor])),
      // the services' best level against the floor: throughput ratio (≥ 0.5 is the target) and CPU per checkout
      services_to_floor: Object.fromEntries(runs.map((r) => [runKey(r), r.servicesToFloor])),
      // per level, the spread of the runs: (max − min) / mean of confirmed/s and of CPU per checkout
      reproducibility: reproducibility(runs),
      // The analysis of what bounds the figures is written by the person who profiled a run; kept across reruns.
      notes: previousNotes(),
    };
    writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await cassandra.shutdown();
    await mongo.close();
  }
}

interface RunResult {
  readonly members: number;
  readonly rows: Record<string, unknown>[];
  readonly idle: Record<string, unknown>;
  readonly bare: Record<string, unknown>;
  readonly ratio: number;
  readonly floor: Record<string, unknown>;
  readonly servicesToFloor: Record<string, number>;
  /** The warm-up's blocks: checkouts, their rate and what the JVMs' JIT spent per checkout in each. */
  readonly warmup: readonly Record<string, number>[];
  /** Cassandra's flush and major compaction after the warm-up (local node only): its seconds, the tasks pending after it. */
  readonly cassandraCompaction: Record<string, number> | null;
}

const runKey = (r: RunResult & { run: number }) => (RUNS > 1 ? `run_${r.run}_mongo_members_${r.members}` : `mongo_members_${r.members}`);

/** Per replica-set size and level: how far apart the runs are ((max − min) / mean), for confirmed/s and CPU-s per checkout. */
function reproducibility(runs: readonly (RunResult & { run: number })[]): Record<string, unknown>[] {
  if (RUNS < 2) return [];
  const out: Record<string, unknown>[] = [];
  for (const members of MONGO_MEMBERS) {
    for (const concurrency of LEVELS) {
      const rows = runs.filter((r) => r.members === members).flatMap((r) => r.rows.filter((row) => row['concurrency'] === concurrency));
      const spread = (values: number[]) => {
        const mean = values.reduce((a, b) => a + b, 0) / values.length;
        return { values, spread: round((Math.max(...values) - Math.min(...values)) / mean, 3) };
      };
      out.push({
        mongo_members: members,
        concurrency,
        confirmed_per_s: spread(rows.map((row) => row['confirmed_per_s'] as number)),
        cpu_seconds_per_checkout: spread(rows.map((row) => (row['cpu_seconds_per_checkout'] as Record<string, number>)['total_servers_and_services']!)),
        // what the host took from each run's level (percent of both cores' time stolen by the hypervisor)
        steal_percent: rows.map((row) => (row['host_cpu'] as { steal_percent?: number } | undefined)?.steal_percent ?? null),
        // the memory walk's CPU ns per load before each run's level: the host's own speed, beside the stack's
        memory_ns_per_load: rows.map((row) => (row['host_speed'] as { before?: { memory_ns_per_load: number } } | undefined)?.before?.memory_ns_per_load ?? null),
      });
    }
  }
  return out;
}

/** One whole run (services up, carts, every level, services down, bare loop) against `infra`. */
async function measure(infra: Record<string, string>, members: number, run: string, customers: readonly TestUser[]): Promise<RunResult> {
  const topics = {
    products: `bench.catalog.products.${run}`,
    checkout: `bench.carts.checkout.${run}`,
    orders: `bench.orders.orders.${run}`,
    commands: `bench.inventory.commands.${run}`,
    events: `bench.inventory.events.${run}`,
  };
  const dbs = { inventory: `inventory_${run}`, orders: `orders_${run}`, bare: `bare_${run}` };
  const keyspace = `carts_${run}`.slice(0, 48);
  const ports: Record<Service, number> = { inventory: 0, carts: 0, orders: 0 };
  for (const s of Object.keys(ports) as Service[]) ports[s] = 20_000 + Math.floor(Math.random() * 20_000);
  const base = { ...process.env, ...infra, NODE_ENV: 'production', LOG_LEVEL, KAFKA_TOPIC_PARTITIONS: String(PARTITIONS), RATE_LIMIT_WRITES_PER_MINUTE: '1000000', RATE_LIMIT_READS_PER_MINUTE: '1000000', RATE_LIMIT_GUEST_SESSIONS_PER_HOUR: '1000000', CARTS_MAX_ACTIVE_PER_OWNER: '10000' };
  const settings: Record<Service, Record<string, string>> = {
    inventory: { MONGO_DB: dbs.inventory, KAFKA_GROUP_ID: `inventory-${run}`, INVENTORY_COMMANDS_TOPIC: topics.commands, INVENTORY_EVENTS_TOPIC: topics.events },
    carts: {
      // production mode refuses the development secret of guest sessions: one of this run's own
      GUEST_SESSION_SECRET: randomBytes(32).toString('base64url'),
      CASSANDRA_KEYSPACE: keyspace,
      KAFKA_GROUP_ID: `carts-${run}`,
      CARTS_PRODUCTS_TOPIC: topics.products,
      CARTS_STOCK_TOPIC: topics.events,
      CARTS_ORDERS_TOPIC: topics.orders,
      CARTS_CHECKOUT_TOPIC: topics.checkout,
    },
    orders: {
      MONGO_DB: dbs.orders,
      KAFKA_GROUP_ID: `orders-${run}`,
      ORDERS_CHECKOUT_TOPIC: topics.checkout,
      ORDERS_EVENTS_TOPIC: topics.orders,
      INVENTORY_COMMANDS_TOPIC: topics.commands,
      INVENTORY_EVENTS_TOPIC: topics.events,
      // The simulated PSP keeps its default latency (20–150 ms per call) but injects no failures here.
      PAYMENT_SIM_TRANSIENT_ERROR_RATE: '0',
      PAYMENT_SIM_TIMEOUT_RATE: '0',
    },
  };

  const logDir = join(ROOT, 'dist', 'bench-logs', run);
  mkdirSync(logDir, { recursive: true });
  const mongo = await createMongoClient(infra['MONGO_URL']!).connect();
  // each member on its own (direct) connection: its oplog application counters (metrics.repl.apply), per checkout
  const memberClients = new Map<string, MongoClient>();
  for (const host of CLUSTER ? [] : hostsOf(infra['MONGO_URL']!))
    memberClients.set(host, await createMongoClient(`mongodb://${host}/?directConnection=true`).connect());
  const applyCounters = async (): Promise<Record<string, ApplyCounters>> => {
    const out: Record<string, ApplyCounters> = {};
    for (const [host, client] of memberClients) out[host] = applyCountersOf(await client.db('admin').command({ serverStatus: 1 }));
    return out;
  };
  const cassandra = new CassandraClient({ contactPoints: infra['CASSANDRA_CONTACT_POINTS']!.split(','), localDataCenter: infra['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1' });
  await cassandra.connect();
  const contactPoints = infra['CASSANDRA_CONTACT_POINTS']!.split(',');
  const cassandraNodes = CLUSTER
    ? contactPoints.map((point) => new CassandraClient({ contactPoints: [point], localDataCenter: infra['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1', policies: { loadBalancing: new cassandraPolicies.loadBalancing.AllowListPolicy(new cassandraPolicies.loadBalancing.RoundRobinPolicy(), [point.includes(':') ? point : `${point}:9042`]) } }))
    : [cassandra];
  const kafka = new Kafka({ clientId: `checkout-bench-${run}`, brokers: infra['KAFKA_BROKERS']!.split(','), sasl: testEnv().kafkaSasl, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const children = new Map<Service, ChildProcess>();
  /** Lines each service wrote to stdout (pino: one JSON line per log record). */
  const logLines: Record<Service, number> = { inventory: 0, carts: 0, orders: 0 };
  const consumers: Consumer[] = [];
  const stopServices = async (): Promise<void> => {
    await Promise.all(
      [...children.values()].map(async (c) => {
        if (c.exitCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, sleep(20_000).then(() => c.kill('SIGKILL'))]);
      }),
    );
  };
  try {
    for (const s of ['inventory', 'orders', 'carts'] as Service[]) {
      const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=${s}-${members}m-${Date.now()}.cpuprofile`] : [];
      const child = spawn(process.execPath, [...profile, join(DIST ?? join(ROOT, 'dist'), `apps/${s}/main.js`)], { cwd: ROOT, env: { ...base, ...settings[s], HTTP_PORT: String(ports[s]) }, stdio: ['ignore', 'pipe', 'pipe'] });
      const log = createWriteStream(join(logDir, `${s}.log`));
      child.stdout?.pipe(log);
      child.stderr?.pipe(log);
      child.stdout?.on('data', (chunk: Buffer) => (logLines[s] += countLines(chunk)));
      children.set(s, child);
    }
    for (const s of children.keys()) await waitHttp(`http://127.0.0.1:${ports[s]}/health/ready`, 120_000, children.get(s)!);
    const url = (s: Service, path: string) => `http://127.0.0.1:${ports[s]}${path}`;
    /** An HTTP call with a real access token (cached and renewed by libs/testing). */
    const call = async (s: Service, token: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...extra };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(url(s, path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };

    // Every message on the saga topics (counted per topic) and the terminal outcome of each cart.
    const terminal = new Map<string, (outcome: string) => void>();
    const seenPerTopic: Record<string, number> = {};
    const samples: Record<string, { key: string; value: string }> = {};
    const hops = new HopClock();
    // kafkajs' default fetch wait: a fetch returns as soon as one byte arrives, so a shorter wait adds
    // no precision and only polls the broker while idle (20 ms made Kafka the largest idle figure).
    const recorder = kafka.consumer({ groupId: `bench-recorder-${run}` });
    consumers.push(recorder);
    await recorder.connect();
    await recorder.subscribe({ topics: [topics.checkout, topics.commands, topics.events, topics.orders], fromBeginning: true });
    await recorder.run({
      partitionsConsumedConcurrently: 4,
      // the recorder reads from the beginning in a group of its own and commits nothing: the broker's
      // offset commits are the services' alone (until 2026-12-02 it committed each batch, in Kafka's CPU)
      autoCommit: false,
      eachMessage: async ({ topic, message }) => {
        seenPerTopic[topic] = (seenPerTopic[topic] ?? 0) + 1;
        const e = JSON.parse(message.value?.toString() ?? '{}') as { type: string; payload: Record<string, unknown> };
        samples[`${topic}|${e.type}`] ??= { key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' };
        hops.saw(e.type, e.payload, Number(message.timestamp));
        if (e.type === 'OrderConfirmed' || e.type === 'OrderCancelled' || e.type === 'OrderRejected') terminal.get(String(e.payload['cart_id']))?.(e.type);
      },
    });

    // Seed: products through the products topic (as the catalog publishes them), stock through inventory's HTTP API.
    const productIds = Array.from({ length: PRODUCTS }, (_, i) => `65f1${i.toString(16).padStart(20, '0')}`);
    const created = '2026-11-01T00:00:00.000Z';
    await producer.send({
      topic: topics.products,
      acks: -1,
      messages: productIds.map((id, i) => {
        const msg = createMessage('catalog.products.v1', 'ProductCreated', { product_id: id, version: 1, name: `Смартфон ${i}`, category_id: CATEGORY, ancestors: [CATEGORY], price: 1_999_000 + i * 100, currency: 'RUB', attributes: {}, created_at: created, updated_at: created }, { correlation_id: `bench-${run}`, causation_id: null });
        return { key: msg.key, value: JSON.stringify(msg.envelope) };
      }),
    });
    const stan = await accessToken('stan');
    await pool(productIds, 8, async (id) => {
      const r = await call('inventory', stan, 'POST', `/stock/${id}/MSK/restock`, { qty: 100_000, reason: 'bench' }, { 'idempotency-key': `bench-${run}-${id}` });
      if (r.status >= 300) throw new Error(`restock ${id}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    const warmupCarts = WARMUP_CHECKOUTS > 0 && WARM_UNTIL_JIT_PERCENT > 0 ? WARMUP_MAX : WARMUP_CHECKOUTS;
    const levelWarmups = WARMUP_CHECKOUTS > 0 ? LEVELS.filter((c) => c !== WARMUP_CONCURRENCY).length * LEVEL_WARMUP : 0;
    const measuredCarts = LEVELS.reduce((n, c) => n + checkoutsAt(c), 0);
    const total = measuredCarts + warmupCarts + levelWarmups;
    console.log(`[bench] mongo_members=${members}: preparing ${total} carts of ${customers.length} customers (not measured)`);
    const carts: { id: string; owner: TestUser }[] = [];
    await pool(Array.from({ length: total }, (_, i) => i), 16, async (i) => {
      const owner = customers[i % customers.length]!;
      const token = await testUserToken(owner);
      const c = await call('carts', token, 'POST', '/carts', { zone: 'MSK' });
      if (c.status !== 201) throw new Error(`cart: ${c.status} ${JSON.stringify(c.body)}`);
      const id = c.body['cart_id'] as string;
      // 1–3 distinct products per cart
      const lines = new Set(Array.from({ length: 1 + (i % 3) }, (_, k) => productIds[(i * 7 + k * 31) % PRODUCTS]!));
      for (const product of lines) {
        for (let attempt = 0; ; attempt++) {
          const r = await call('carts', token, 'PUT', `/carts/${id}/items/${product}`, { qty: 1 });
          if (r.status === 200) break;
          if (attempt > 300) throw new Error(`put item: ${r.status} ${JSON.stringify(r.body)}`);
          await sleep(200); // carts has not consumed the product yet
        }
      }
      carts.push({ id, owner });
    });
    /** `list`'s checkouts, `concurrency` in flight, each from its POST to its order's terminal event. */
    const checkoutAll = async (list: typeof carts, concurrency: number, rate?: number): Promise<{ got: Sample[]; elapsed: number }> => {
      const got: Sample[] = [];
      const deadline = Date.now() + LEVEL_BUDGET_MS;
      const started = performance.now();
      let lastEnd = started;
      const drive = (fn: (cart: (typeof carts)[number]) => Promise<void>) => (rate === undefined ? pool(list, concurrency, fn) : paced(list, rate, concurrency, fn));
      await drive(async ({ id: cartId, owner }) => {
        if (Date.now() > deadline) return;
        const token = await testUserToken(owner);
        const sentAt = Date.now();
        const t0 = performance.now();
        const done = new Promise<string>((resolve) => terminal.set(cartId, resolve));
        const r = await call('carts', token, 'POST', `/carts/${cartId}/checkout`);
        const httpMs = performance.now() - t0;
        if (r.status !== 202) throw new Error(`checkout ${cartId}: ${r.status} ${JSON.stringify(r.body)}`);
        const outcome = await Promise.race([done, sleep(60_000).then(() => 'TIMEOUT')]);
        const end = performance.now();
        lastEnd = Math.max(lastEnd, end);
        got.push({ latencyMs: end - t0, httpMs, outcome, cartId, sentAt, seenAt: Date.now() });
      });
      return { got, elapsed: (lastEnd - started) / 1000 };
    };
    // The warm-up level: the JVM servers' JIT and caches, the services' code and pools at temperature before anything is measured.
    const warmProcs = measuredProcesses(children, infra['MONGO_URL']!);
    /** CPU seconds the JVM servers' JIT compiler threads have spent so far. */
    const jitSeconds = (): number => JVM_SERVERS.reduce((n, k) => n + (warmProcs[k] === undefined ? 0 : Object.values(threadsOf({ [k]: warmProcs[k]! })[k] ?? {}).filter((t) => JIT_THREADS.test(t.name)).reduce((m, t) => m + t.cpuSeconds, 0)), 0);
    let warmedWith = 0;
    const warmupLog: { concurrency: number; checkouts: number; confirmed_per_s: number; cpu_ms_per_checkout: number; jit_cpu_ms_per_checkout: number; jit_percent: number }[] = [];
    let cassandraCompaction: Record<string, number> | null = null;
    /** Checks out `list` at `concurrency`, not reported; answers the JIT's share of the stack's CPU over them, in percent. */
    const warmWith = async (list: typeof carts, concurrency: number): Promise<number> => {
      await pool(customers, 8, async (c) => void (await testUserToken(c, TOKEN_VALID_FOR_MS)));
      const jitFrom = jitSeconds();
      const cpuFrom = cpuOf(warmProcs);
      const warm = await checkoutAll(list, concurrency);
      const cpuTo = cpuOf(warmProcs);
      const stack = Object.keys(warmProcs).filter((k) => k !== 'bench driver').reduce((t, k) => t + (cpuTo[k] ?? 0) - (cpuFrom[k] ?? 0), 0);
      const jit = jitSeconds() - jitFrom;
      const per = 1000 / Math.max(1, warm.got.length);
      const percent = stack > 0 ? (100 * jit) / stack : 0;
      warmupLog.push({ concurrency, checkouts: warm.got.length, confirmed_per_s: round(warm.got.filter((g) => g.outcome === 'OrderConfirmed').length / warm.elapsed), cpu_ms_per_checkout: round(stack * per, 1), jit_cpu_ms_per_checkout: round(jit * per, 2), jit_percent: round(percent, 1) });
      console.log(JSON.stringify({ warmup: warmupLog[warmupLog.length - 1] }));
      return percent;
    };
    if (WARMUP_CHECKOUTS > 0) {
      console.log(`[bench] mongo_members=${members}: warm-up, ${WARMUP_CHECKOUTS} checkouts at ${WARMUP_CONCURRENCY} in flight (not reported)${WARM_UNTIL_JIT_PERCENT > 0 ? `, then blocks of ${WARMUP_BLOCK} until the JIT takes < ${WARM_UNTIL_JIT_PERCENT} % of the stack's CPU (at most ${WARMUP_MAX})` : ''}`);
      /** Checks out the next `n` carts of the warm-up. */
      const warmBlock = async (n: number): Promise<number> => {
        const list = carts.slice(warmedWith, warmedWith + n);
        warmedWith += n;
        return warmWith(list, WARMUP_CONCURRENCY);
      };
      let jitPercent = await warmBlock(WARMUP_CHECKOUTS);
      while (WARM_UNTIL_JIT_PERCENT > 0 && jitPercent >= WARM_UNTIL_JIT_PERCENT && warmedWith + WARMUP_BLOCK <= warmupCarts) jitPercent = await warmBlock(WARMUP_BLOCK);
    }
    if (compactsCassandra()) {
      console.log(`[bench] mongo_members=${members}: Cassandra flushed and compacted before the levels`);
      cassandraCompaction = await settleCassandraCompaction();
      console.log(JSON.stringify({ cassandra_compaction: cassandraCompaction }));
    }
    await sleep(IDLE_SETTLE_MS); // let the setup's work settle (relays, level notifications, the servers) before measuring

    const counters = async (): Promise<Counters> => {
      const top = (await mongo.db('admin').command({ top: 1 }))['totals'] as Record<string, Record<string, { count: number }>>;
      const mongoCounts: Record<string, number> = {};
      for (const [ns, t] of Object.entries(top)) {
        if (!ns.startsWith(`${dbs.inventory}.`) && !ns.startsWith(`${dbs.orders}.`)) continue;
        for (const op of ['insert', 'update', 'remove', 'queries', 'getmore', 'commands'] as const) mongoCounts[op] = (mongoCounts[op] ?? 0) + (t[op]?.count ?? 0);
        // where they go: writes and reads per collection (`writes orders.orders`), to see what a change removed
        const where = `${ns.startsWith(`${dbs.inventory}.`) ? 'inventory' : 'orders'}.${ns.slice(ns.indexOf('.') + 1)}`;
        const writes = (t['insert']?.count ?? 0) + (t['update']?.count ?? 0) + (t['remove']?.count ?? 0);
        const reads = (t['queries']?.count ?? 0) + (t['getmore']?.count ?? 0);
        if (writes > 0) mongoCounts[`writes ${where}`] = writes;
        if (reads > 0) mongoCounts[`reads ${where}`] = reads;
      }
      // system_views are a node's own counts: on the cluster, summed over the three nodes (each asked directly)
      const sum = async (table: string) => {
        let n = 0;
        for (const client of cassandraNodes) {
          const r = await client.execute(`SELECT count FROM system_views.${table} WHERE keyspace_name = ?`, [keyspace], { prepare: true });
          n += r.rows.reduce((k, row) => k + Number(row['count'] as cassandraTypes.Long), 0);
        }
        return n;
      };
      return { mongo: mongoCounts, cassandra: { writes: await sum('local_write_latency'), reads: await sum('coordinator_read_latency') }, kafka: { ...seenPerTopic } };
    };
    const topicNames = Object.values(topics);
    /** b − a, then scaled: `scale` 1/n gives per checkout, 1/seconds per second (bench/counters.ts). */
    const diff = (a: Counters, b: Counters, scale = 1): Counters => diffCounters(a, b, topicNames, scale);
    const procs = warmProcs;
    const cpuDelta = (a: Record<string, number>, b: Record<string, number>, scale: number) => Object.fromEntries(Object.keys(procs).map((k) => [k, round(((b[k] ?? 0) - (a[k] ?? 0)) * scale, 4)]));

    const rows: Record<string, unknown>[] = [];
    let idle: Record<string, unknown> = {};
    // The checkouts' own operations summed over every level (idle baseline of each level subtracted), and how many checkouts did them.
    const measured: LevelCounts[] = [];
    let cursor = warmupCarts;
    let levelWarmCursor = warmupCarts + measuredCarts;
    for (const [levelIndex, concurrency] of LEVELS.entries()) {
      const mine = carts.slice(cursor, cursor + checkoutsAt(concurrency));
      cursor += checkoutsAt(concurrency);
      if (WARMUP_CHECKOUTS > 0 && LEVEL_WARMUP > 0 && concurrency !== WARMUP_CONCURRENCY) {
        console.log(`[bench] mongo_members=${members}: ${LEVEL_WARMUP} checkouts at ${concurrency} in flight before the level (not reported)`);
        await warmWith(carts.slice(levelWarmCursor, levelWarmCursor + LEVEL_WARMUP), concurrency);
        levelWarmCursor += LEVEL_WARMUP;
        await sleep(IDLE_SETTLE_MS);
      }
      const idleMs = levelIndex === 0 ? FIRST_IDLE_WINDOW_MS : IDLE_WINDOW_MS;
      // every token valid for the quiet window and the level, renewed here (a password grant costs Keycloak ~0.1–0.3 CPU-s:
      // 200 renewals inside a level took the CPU the stack measures, and once timed out a run)
      await pool(customers, 8, async (c) => void (await testUserToken(c, TOKEN_VALID_FOR_MS)));
      const idleFrom = await counters();
      const idleCpuFrom = cpuOf(procs);
      const idleStarted = performance.now();
      await sleep(idleMs);
      const idleTo = await counters();
      const idleSeconds = (performance.now() - idleStarted) / 1000;
      const idlePerS = diff(idleFrom, idleTo, 1 / idleSeconds);
      if (levelIndex === 0) {
        const percent = cpuDelta(idleCpuFrom, cpuOf(procs), 100 / idleSeconds);
        const stack = Object.entries(percent).filter(([k]) => k !== 'bench driver').reduce((n, [, v]) => n + v, 0);
        idle = { seconds: round(idleSeconds, 1), cpu_percent_of_one_core: percent, stack_cpu_percent_of_one_core: round(stack, 1), ops_per_s: roundCounters(idlePerS) };
        console.log(JSON.stringify({ mongo_members: members, idle }));
      }
      const before = await counters();
      const cpuBefore = cpuOf(procs);
      const threadsBefore = threadsOf(procs);
      const windowStarted = performance.now();
      const statusBefore = await mongo.db('admin').command({ serverStatus: 1 });
      const serverBefore = statusBefore['opcounters'] as Record<string, number>;
      const oplogFrom = await oplogEnd(mongo);
      const applyBefore = await applyCounters();
      const speedBefore = hostSpeed();
      const hostBefore = hostCpu();
      const linesBefore = { ...logLines };
      const { got, elapsed } = await checkoutAll(mine, concurrency, RATE);
      const hostShares = hostCpuShares(hostBefore, hostCpu());
      const speedAfter = hostSpeed();
      await sleep(1500); // trailing relay work of this level is counted with it
      const after = await counters();
      const cpuAfter = cpuOf(procs);
      const threadsAfter = threadsOf(procs);
      const windowSeconds = (performance.now() - windowStarted) / 1000;
      const statusAfter = await mongo.db('admin').command({ serverStatus: 1 });
      const serverAfter = statusAfter['opcounters'] as Record<string, number>;
      const oplogTo = await oplogEnd(mongo);
      const applyAfter = await applyCounters();
      const confirmed = got.filter((g) => g.outcome === 'OrderConfirmed').length;
      const lat = got.map((g) => g.latencyMs).sort((a, b) => a - b);
      const http = got.map((g) => g.httpMs).sort((a, b) => a - b);
      const level: LevelCounts = { before, after, idlePerS, seconds: windowSeconds, checkouts: got.length };
      measured.push(level);
      const cpuPer = cpuDelta(cpuBefore, cpuAfter, 1 / Math.max(1, got.length));
      const row = {
        mongo_members: members,
        concurrency,
        ...(RATE === undefined ? {} : { offered_per_s: RATE }),
        checkouts: got.length,
        confirmed,
        other_outcomes: got.length - confirmed,
        seconds: round(elapsed, 2),
        confirmed_per_s: round(confirmed / elapsed),
        latency_ms: { p50: round(pct(lat, 50)), p99: round(pct(lat, 99)), max: round(lat[lat.length - 1] ?? NaN) },
        // the machine while the level ran, in percent of both cores' time: a run slowed by the host shows as steal
        host_cpu: hostShares,
        // a fixed memory walk and integer loop timed in this driver just before and just after the level (CPU ns per
        // step): a host that got slower shows here where it does not show as steal (ADR 0015 §12)
        host_speed: { before: speedBefore, after: speedAfter },
        checkout_http_ms: { p50: round(pct(http, 50)), p99: round(pct(http, 99)) },
        // where a confirmed checkout's time goes, hop by hop: each message's Kafka CreateTime (when its producer sent it)
        latency_by_hop_ms: hops.breakdown(got.filter((g) => g.outcome === 'OrderConfirmed')),
        cpu_seconds_per_checkout: { ...cpuPer, total_servers_and_services: round(Object.entries(cpuPer).filter(([k]) => k !== 'bench driver').reduce((n, [, v]) => n + v, 0), 4) },
        // the same by thread group inside each process (cpu_s), with how often that group slept and woke (sleeps:
        // voluntary context switches) per checkout: a server's storage, replication or network threads (ADR 0015 §10)
        cpu_by_thread_per_checkout: Object.fromEntries(Object.keys(procs).map((k) => [k, threadCpuDelta(threadsBefore[k] ?? {}, threadsAfter[k] ?? {}, 1 / Math.max(1, got.length), THREAD_GROUPS_SHOWN, THREAD_MIN_CPU_S)])),
        // the level's operations minus the idle services' (idle_per_s × the level's seconds), per checkout
        per_checkout: perCheckout([level], topicNames),
        // what the level's writes cost the replica set: oplog entries of the run's databases (transactions' applyOps included)
        oplog_per_checkout: perCheckoutOf(await oplogBetween(mongo, oplogFrom, oplogTo, [dbs.inventory, dbs.orders]), got.length),
        // the same by collection and operation (i, u, d): which writes carry the bytes
        oplog_by_collection_per_checkout: byCollectionPerCheckout(await oplogByCollection(mongo, oplogFrom, oplogTo, { [dbs.inventory]: 'inventory', [dbs.orders]: 'orders' }), got.length),
        // at --log-level (setup.log_level); the idle services' lines are not subtracted
        log_lines_per_checkout: Object.fromEntries((Object.keys(logLines) as Service[]).map((k) => [k, round((logLines[k] - linesBefore[k]) / Math.max(1, got.length), 2)])),
        idle_per_s: roundCounters(idlePerS),
        // round trips the primary served per checkout, by command (whole server: idle work included)
        primary_commands_per_checkout: commandsPerCheckout(statusBefore, statusAfter, got.length),
        // each secondary's oplog application per checkout: batches it applied (fetched, journalled, reported) and entries
        secondary_apply_per_checkout: applyPerCheckout(applyBefore, applyAfter, got.length),
        mongod_opcounters_per_s_whole_server: Object.fromEntries(Object.keys(serverAfter).map((k) => [k, round(((serverAfter[k] ?? 0) - (serverBefore[k] ?? 0)) / elapsed)])),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    }

    // The bare loop: the same messages and database operations per checkout, the services stopped.
    if (measured.every((l) => l.checkouts === 0)) throw new Error('no checkout measured: nothing to mirror in the bare loop');
    await recorder.stop();
    await stopServices();
    if (CLUSTER) {
      // the bare loop and the floor are the single node's reference (results.json), not repeated here
      const skipped = { skipped: 'cluster topology: see results.json for the bare loop and the floor on the same machine' };
      return { members, rows, idle, bare: skipped, ratio: NaN, floor: skipped, servicesToFloor: {}, warmup: warmupLog, cassandraCompaction };
    }
    const perCheckoutOfRun = perCheckout(measured, topicNames);
    const top = Math.max(...LEVELS);
    const bare = await bareLoop({ kafka, producer, mongo, cassandra, run, dbs, keyspace, per: perCheckoutOfRun, samples, topics, checkouts: checkoutsAt(top), concurrency: top, consumers });
    const best = Math.max(...rows.map((r) => r['confirmed_per_s'] as number));
    // The floor at the highest level's concurrency, same servers, the services stopped: its CPU is the servers' and this driver's.
    let floorCpuFrom: Record<string, number> = {};
    let floorOplogFrom = await oplogEnd(mongo);
    let floorHostFrom = hostCpu();
    let floorHostTo = floorHostFrom;
    let floorCpuTo: Record<string, number> = {};
    let floorOplogTo = floorOplogFrom;
    const sample = (type: string) => Object.entries(samples).find(([k]) => k.endsWith(`|${type}`))?.[1] ?? { key: type, value: JSON.stringify({ type, payload: { filler: 'x'.repeat(400) } }) };
    const floorRun = await floorLoop({ kafka, producer, mongo, cassandra, run, topicStem: `bench.${run}`, partitions: PARTITIONS, checkouts: checkoutsAt(top), concurrency: top, sample, onStart: async () => {
      floorOplogFrom = await oplogEnd(mongo);
      floorCpuFrom = cpuOf(procs);
      floorHostFrom = hostCpu();
    }, onEnd: async () => {
      floorCpuTo = cpuOf(procs);
      floorHostTo = hostCpu();
      floorOplogTo = await oplogEnd(mongo);
    } });
    const floorHost = hostCpuShares(floorHostFrom, floorHostTo);
    const floorCpu = cpuDelta(floorCpuFrom, floorCpuTo, 1 / floorRun.checkouts);
    const floorCpuTotal = round(Object.entries(floorCpu).filter(([k]) => !(k in ports)).reduce((n, [, v]) => n + v, 0), 4);
    const floor = { ...floorRun, host_cpu: floorHost, cpu_seconds_per_checkout: { ...floorCpu, total: floorCpuTotal }, oplog_per_checkout: perCheckoutOf(await oplogBetween(mongo, floorOplogFrom, floorOplogTo, [`floor_${run}`]), floorRun.checkouts), oplog_by_collection_per_checkout: byCollectionPerCheckout(await oplogByCollection(mongo, floorOplogFrom, floorOplogTo, { [`floor_${run}`]: 'floor' }), floorRun.checkouts) };
    console.log(JSON.stringify({ floor }));
    const bestRow = rows.reduce((a, b) => ((b['confirmed_per_s'] as number) > (a['confirmed_per_s'] as number) ? b : a));
    const servicesCpu = (bestRow['cpu_seconds_per_checkout'] as Record<string, number>)['total_servers_and_services']!;
    const servicesToFloor = { throughput: round(best / floorRun.checkouts_per_s, 3), cpu_per_checkout: round(servicesCpu / floorCpuTotal, 2) };
    return { members, rows, idle, bare, ratio: round(best / (bare['checkouts_per_s'] as number), 3), floor, servicesToFloor, warmup: warmupLog, cassandraCompaction };
  } finally {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await stopServices();
    await producer.disconnect().catch(() => undefined);
    for (const db of Object.values(dbs)) await mongo.db(db).dropDatabase().catch(() => undefined);
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
    for (const client of cassandraNodes) if (client !== cassandra) await client.shutdown().catch(() => undefined);
    for (const client of memberClients.values()) await client.close().catch(() => undefined);
    await cassandra.shutdown();
    await mongo.close();
  }
}

interface BareInput {
  kafka: Kafka;
  producer: Producer;
  mongo: MongoClient;
  cassandra: CassandraClient;
  run: string;
  dbs: { bare: string };
  keyspace: string;
  per: { mongo: Record<string, number>; cassandra: { writes: number; reads: number }; kafka: Record<string, number> };
  samples: Record<string, { key: string; value: string }>;
  topics: Record<string, string>;
  checkouts: number;
  concurrency: number;
  consumers: Consumer[];
}

/**
 * Per checkout, sequentially (a checkout's steps depend on each other), `concurrency` checkouts at
 * once: the Kafka messages of a real checkout (per topic, rounded, using real envelopes of the
 * run as payloads, acks=all, one send per message as the relays do), each consumed by as many
 * consumer groups as read that topic in the system; the MongoDB operations (w:majority inserts,
 * updates, deletes, primary finds); Cassandra writes (two of them LWTs, as a checkout and its
 * outcome are) and reads; and the two PSP calls' latency (20–150 ms each, as the simulator).
 */
async function bareLoop(i: BareInput): Promise<Record<string, unknown>> {
  const readers: Record<string, number> = { [i.topics['checkout']!]: 1, [i.topics['commands']!]: 1, [i.topics['events']!]: 2, [i.topics['orders']!]: 1 };
  const bareTopic = (t: string) => `${t}.bare`;
  const admin = i.kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: Object.keys(readers).map((t) => ({ topic: bareTopic(t), numPartitions: PARTITIONS })), waitForLeaders: true });
  await admin.disconnect();
  const plan: { topic: string; key: string; value: string }[] = [];
  for (const [topic, n] of Object.entries(i.per.kafka)) {
    const samples = Object.entries(i.samples).filter(([k]) => k.startsWith(`${topic}|`)).map(([, v]) => v);
    for (let k = 0; k < Math.round(n); k++) plan.push({ topic: bareTopic(topic), ...samples[k % samples.length]! });
  }
  const expected = plan.reduce((n, p) => n + (readers[p.topic.replace(/\.bare$/, '')] ?? 1), 0) * i.checkouts;
  let consumed = 0;
  for (const [topic, groups] of Object.entries(readers)) {
    for (let g = 0; g < groups; g++) {
      const c = i.kafka.consumer({ groupId: `bare-${i.run}-${g}-${topic}` });
      i.consumers.push(c);
      await c.connect();
      await c.subscribe({ topic: bareTopic(topic), fromBeginning: true });
      await c.run({ partitionsConsumedConcurrently: PARTITIONS, eachMessage: async () => void consumed++ });
    }
  }
  const db = i.mongo.db(i.dbs.bare);
  const coll = db.collection<{ _id: string; n: number; body: string; items: unknown[] }>('docs', { writeConcern: new WriteConcern('majority') });
  await i.cassandra.execute(`CREATE KEYSPACE IF NOT EXISTS bare_${i.run} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await i.cassandra.execute(`CREATE TABLE IF NOT EXISTS bare_${i.run}.rows (id text PRIMARY KEY, revision int, body text)`);
  const ks = `bare_${i.run}`;
  const m = i.per.mongo;
  const cw = Math.round(i.per.cassandra.writes);
  const cr = Math.round(i.per.cassandra.reads);
  const body = 'x'.repeat(1500);
  const counts = { insert: Math.round(m['insert'] ?? 0), update: Math.round(m['update'] ?? 0), remove: Math.round(m['remove'] ?? 0), queries: Math.round(m['queries'] ?? 0), commands: Math.round(m['commands'] ?? 0) };
  const started = performance.now();
  await pool(
    Array.from({ length: i.checkouts }, (_, k) => k),
    i.concurrency,
    async () => {
      const id = randomUUID();
      await i.cassandra.execute(`INSERT INTO ${ks}.rows (id, revision, body) VALUES (?, 0, ?) IF NOT EXISTS`, [id, body], { prepare: true });
      await i.cassandra.execute(`UPDATE ${ks}.rows SET revision = 1 WHERE id = ? IF revision = 0`, [id], { prepare: true });
      for (let w = 2; w < cw; w++) await i.cassandra.execute(`INSERT INTO ${ks}.rows (id, revision, body) VALUES (?, ?, ?)`, [`${id}-${w}`, w, body], { prepare: true });
      for (let r = 0; r < cr; r++) await i.cassandra.execute(`SELECT body FROM ${ks}.rows WHERE id = ?`, [id], { prepare: true });
      for (let k = 0; k < counts.insert; k++) await coll.insertOne({ _id: `${id}-${k}`, n: 0, body, items: [] });
      for (let k = 0; k < counts.update; k++) await coll.updateOne({ _id: `${id}-0` }, { $inc: { n: 1 }, $push: { items: { k, at: new Date() } } });
      for (let k = 0; k < counts.commands; k++) await coll.findOneAndUpdate({ _id: `${id}-0` }, { $inc: { n: 1 } });
      for (let k = 0; k < counts.queries; k++) await coll.findOne({ _id: `${id}-0` });
      for (let k = 0; k < counts.remove; k++) await coll.deleteOne({ _id: `${id}-${k}` });
      // the PSP's answer to the sale (authorize and capture in one call) at the simulator's latency: time, not CPU
      await sleep(20 + Math.random() * 130);
      for (const p of plan) await i.producer.send({ topic: p.topic, acks: -1, messages: [{ key: p.key, value: p.value }] });
    },
  );
  const producedAt = performance.now();
  const deadline = Date.now() + 60_000;
  while (consumed < expected && Date.now() < deadline) await sleep(10);
  const elapsed = (performance.now() - started) / 1000;
  await i.mongo.db(i.dbs.bare).dropDatabase();
  await i.cassandra.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
  return {
    concurrency: i.concurrency,
    checkouts: i.checkouts,
    seconds: round(elapsed, 2),
    checkouts_per_s: round(i.checkouts / elapsed),
    produce_phase_s: round((producedAt - started) / 1000, 2),
    consumed_all: consumed >= expected,
    per_checkout_ops: { kafka_messages: plan.length, kafka_consumed: expected / i.checkouts, mongo: counts, cassandra_writes: cw, cassandra_lwt_of_them: 2, cassandra_reads: cr },
  };
}

main().catch((e: unknown) => {
  console.error(`[bench:checkout] failed: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
