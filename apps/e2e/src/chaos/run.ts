import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client as CassandraClient, types as cassandraTypes } from 'cassandra-driver';
import { waitFor } from '@mw/testing';
import { ROOT, ServiceName, Stack } from '../stack';
import { ClusterChaosInfra, type PartitionOutcome } from './cluster-infra';
import { ChaosInfra, type ChaosServers } from './infra';
import { acknowledgedOf, allOrdersTerminal, checkAll, InvariantResult } from './invariants';
import { injectPartition } from './nemesis';
import { describeFault, Fault, planFaults, PlannedFault, Profile, SESSION_TIMEOUT_MS, trackOf } from './plan';
import { Rng } from './rng';
import { Product, sleep, Storm, StormStats, ZONES } from './storm';

export interface ChaosOptions {
  readonly seed: number;
  readonly profile: Profile;
  /** Leave the chaos servers running afterwards (to look at the data). */
  readonly keepInfra?: boolean;
  /** Directory holding the service bundles (default: this checkout's dist/). */
  readonly dist?: string;
  readonly log?: (line: string) => void;
}

export interface InjectedFault {
  readonly planned_at_s: number;
  readonly at_s: number;
  readonly fault: string;
  /** From the fault until the component answered again. */
  readonly recovery_s: number;
  readonly detail?: string;
  readonly error?: string;
  /** A partition's own clock: cut → failover, how long it held, heal → whole again. */
  readonly partition?: Omit<PartitionOutcome, 'detail'>;
}

/** The partitions of a run, counted and timed by kind (the figures docs/scale-out.md quotes). */
export interface PartitionSummary {
  readonly partitions: number;
  readonly healed: number;
  readonly by_kind: Record<string, { count: number; failover_s: (number | null)[]; after_heal_s: number[] }>;
}

export interface ChaosReport {
  readonly ok: boolean;
  readonly seed: number;
  readonly profile: Profile;
  readonly started_at: string;
  readonly duration_s: number;
  readonly machine: { cpus: number; memory_gib: number; node: string; load_avg_end: number[] };
  readonly servers: string[];
  readonly faults: InjectedFault[];
  readonly unexpected_exits: string[];
  readonly storm: StormStats;
  readonly outcomes: Record<string, number>;
  /** How the reservations ended (released by the saga, expired, committed, returned, rejected). */
  readonly reservations: Record<string, number>;
  readonly checkout_to_terminal_s: { p50: number; p99: number; max: number };
  readonly invariants: InvariantResult[];
  readonly partitions?: PartitionSummary;
}

/** Customers created in Keycloak for the storm (real users: carts and orders know a user only as a token subject). */
const CUSTOMERS = 16;

const SINGLE_COUNTS = { inventory: 2, orders: 2, carts: 2, catalog: 1, 'catalog-projector': 1 } as const;
/** On the cluster topology every service runs twice, each instance on a host of its own. */
const CLUSTER_COUNTS = { inventory: 2, orders: 2, carts: 2, catalog: 2, 'catalog-projector': 2 } as const;

/** Short consumer sessions: a killed member leaves its group in seconds (a restart need not wait 30 s for it). */
const KAFKA_TIMEOUTS = {
  KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
  KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
  KAFKA_HANDLER_TIMEOUT_MS: String(SESSION_TIMEOUT_MS / 2),
};

/**
 * The stock hold of the run: the production default (orders' STOCK_HOLD_SECONDS), longer than any
 * run, so no hold may end by expiry — a ReleaseStock lost to a fault shows as a hold left behind
 * and as a reservation not released by the saga, instead of being cleaned up by the clock.
 */
const PRODUCTION_HOLD_SECONDS = 900;

/** Saga deadlines of the run (orders' settings): a checkout must be terminal within their sum + the longest outage. */
const DEADLINES_MS = { stock: 20_000, payment: 20_000, commit: 20_000, cancel: 20_000 };

/**
 * One chaos run: private servers, the whole system as processes (two instances of inventory,
 * orders and carts), a seeded checkout storm while the seeded fault plan kills and pauses
 * processes and servers, then — once everything recovered — the invariants, checked from the
 * databases and topics.
 */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const started = Date.now();
  const rng = new Rng(opts.seed);
  const cluster = opts.profile.topology === 'cluster';
  const PROCESS_COUNTS = cluster ? CLUSTER_COUNTS : SINGLE_COUNTS;
  const clusterInfra = cluster ? new ClusterChaosInfra(log) : undefined;
  const infra: ChaosServers = clusterInfra ?? new ChaosInfra(ROOT, log);
  const savedEnv = { ...process.env };
  let stack: Stack | undefined;
  let stopWatching = (): void => undefined;
  try {
    log(`[chaos] seed ${opts.seed}, profile ${opts.profile.name}: starting private servers under ${infra.where}`);
    const connection = await infra.up();
    Object.assign(process.env, connection);
    const ids = Object.entries(PROCESS_COUNTS).flatMap(([service, n]) => Array.from({ length: n }, (_, i) => (i === 0 ? service : `${service}-${i + 1}`)));
    const placed = clusterInfra?.place(ids);
    // the cluster's replication for every topic and keyspace the services create (RF 3, min ISR 2)
    const replication: Record<string, string> = cluster
      ? {
          KAFKA_REPLICATION_FACTOR: connection['KAFKA_REPLICATION_FACTOR'] ?? '3',
          KAFKA_MIN_INSYNC_REPLICAS: connection['KAFKA_MIN_INSYNC_REPLICAS'] ?? '2',
          CASSANDRA_REPLICATION_FACTOR: connection['CASSANDRA_REPLICATION_FACTOR'] ?? '3',
        }
      : {};
    const base = { ...KAFKA_TIMEOUTS, ...replication };
    stack = new Stack(opts.dist, {
      prefix: 'chaos',
      customers: CUSTOMERS,
      instances: PROCESS_COUNTS,
      // ten processes creating RF 3 keyspaces and tables at once wait for schema agreement across three nodes
      ...(placed ? { placement: (id: string) => placed.get(id), startTimeoutMs: 480_000 } : {}),
      env: {
        ...Object.fromEntries(Object.keys(PROCESS_COUNTS).map((service) => [service, base])),
        orders: {
          ...base,
          STOCK_HOLD_SECONDS: String(PRODUCTION_HOLD_SECONDS),
          SAGA_STOCK_TIMEOUT_MS: String(DEADLINES_MS.stock),
          SAGA_PAYMENT_TIMEOUT_MS: String(DEADLINES_MS.payment),
          SAGA_COMMIT_TIMEOUT_MS: String(DEADLINES_MS.commit),
          SAGA_CANCEL_TIMEOUT_MS: String(DEADLINES_MS.cancel),
          PAYMENT_SIM_TRANSIENT_ERROR_RATE: '0.05',
          PAYMENT_SIM_TIMEOUT_RATE: '0.02',
          PAYMENT_SIM_LATENCY_MIN_MS: '20',
          PAYMENT_SIM_LATENCY_MAX_MS: '80',
          LOG_LEVEL: 'info',
        },
        inventory: { ...base, LOG_LEVEL: 'info' },
        carts: { ...base, LOG_LEVEL: 'info' },
      },
    });
    const s = stack;
    log(`[chaos] run ${s.run}: starting ${Object.values(PROCESS_COUNTS).reduce((a, b) => a + b, 0)} service processes (logs: ${s.logDir})`);
    await s.start();
    if (clusterInfra) {
      clusterInfra.probeTopic = s.topics.checkout;
      clusterInfra.runTopics = Object.values(s.topics);
    }
    const unexpected: string[] = [];
    const expectedDown = new Set<string>();
    stopWatching = watchExits(s, expectedDown, unexpected, log);

    const products = await setUpCatalogue(s, rng, log);
    const plan = planFaults(opts.seed, opts.profile, {
      processes: Object.fromEntries(Object.keys(PROCESS_COUNTS).map((service) => [service, s.instances(service as ServiceName).map((i) => i.id)])),
      pausable: s.instances().filter((i) => i.id.endsWith('-2')).map((i) => i.id),
    });
    log(`[chaos] plan: ${plan.length} faults over ${opts.profile.stormSeconds} s\n${plan.map((p) => `  ${String(p.at).padStart(6)} s  ${describeFault(p.fault)}`).join('\n')}`);

    const storm = new Storm(s, products, rng.fork(), log);
    const stormStart = Date.now();
    const stormEnd = stormStart + opts.profile.stormSeconds * 1000;
    const poisoned = new Map<string, number>();
    // The storm lasts its planned time and at least until the last fault recovered, plus 10 s of calm.
    let faultsDoneAt = Number.POSITIVE_INFINITY;
    const injecting = injectAll(s, infra, opts.profile, plan, stormStart, expectedDown, poisoned, log).finally(() => (faultsDoneAt = Date.now()));
    const [, faults] = await Promise.all([storm.run(opts.profile.concurrency, () => Date.now() > Math.max(stormEnd, faultsDoneAt + 10_000)), injecting]);
    log(`[chaos] storm over: ${storm.stats.accepted} checkouts accepted; waiting for the system to settle`);

    // Recovery: every process up, every accepted checkout terminal, nothing held, every group drained.
    await Promise.all(s.instances().map((i) => s.waitReady(i.id, 180_000)));
    const longestOutageMs = Math.max(0, ...faults.map((f) => f.recovery_s * 1000));
    const terminalBudgetMs = Object.values(DEADLINES_MS).reduce((a, b) => a + b, 0) + longestOutageMs + 30_000;
    await waitFor(async () => (await allOrdersTerminal(s.db('orders'), storm.accepted)) || undefined, terminalBudgetMs + 60_000, 'every accepted checkout an order, every order terminal').catch((e: unknown) => log(`[chaos] ${(e as Error).message}`));
    await waitFor(async () => (await s.relayCatalog()) === 0, 60_000, 'catalog outbox relayed').catch((e: unknown) => log(`[chaos] ${(e as Error).message}`));
    await s.drained(180_000).catch((e: unknown) => log(`[chaos] ${(e as Error).message}`));
    await waitFor(
      async () =>
        (await s.db('inventory').collection('stock').countDocuments({ $or: [{ reserved: { $ne: 0 } }, { '_ledger.0': { $exists: true } }] })) === 0 &&
        (await s.db('inventory').collection('reservations').countDocuments({ pending: { $exists: true } })) === 0,
      90_000,
      'holds released, reservation work settled and ledger flushed',
    ).catch((e: unknown) => log(`[chaos] ${(e as Error).message}`));

    // The checker reads what the services wrote at LOCAL_QUORUM, at LOCAL_QUORUM: the driver's default (LOCAL_ONE)
    // may ask the one replica a partition kept from a write and report an acknowledged cart as stale (issue 32)
    const cassandra = new CassandraClient({
      contactPoints: (connection['CASSANDRA_CONTACT_POINTS'] ?? '').split(','),
      localDataCenter: connection['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1',
      queryOptions: { consistency: cassandraTypes.consistencies.localQuorum },
    });
    let checked: Awaited<ReturnType<typeof checkAll>>;
    try {
      checked = await checkAll({
        inventory: s.db('inventory'),
        orders: s.db('orders'),
        cassandra,
        cartsKeyspace: s.keyspaces.carts,
        kafka: s.kafka,
        topics: Object.values(s.topics),
        accepted: storm.accepted,
        poisoned,
        terminalBudgetMs,
        unexpectedExits: unexpected,
        acknowledged: acknowledgedOf(storm.acknowledged, s.recorded, s.topics),
      });
    } finally {
      await cassandra.shutdown();
    }
    checked.results.push(catalogVerify(s));
    checked.results.push({ name: 'storm produced checkouts', ok: storm.accepted.length > 0 && storm.stats.accepted > opts.profile.stormSeconds / 10, value: `${storm.accepted.length} accepted`, details: [] });
    const after = storm.stats.afterOrder;
    // 409: the state did not allow it; 404: the order did not exist yet (its CheckoutRequested still on the way through a fault).
    const afterOff = Object.keys(after).filter((k) => !/^(cancel 202|delivery 200|completion 200|\w+ 409 ORDERS\.(CANCEL_REFUSED|ILLEGAL_TRANSITION)|\w+ 404 ORDERS\.ORDER_NOT_FOUND)$/.test(k));
    checked.results.push({
      name: 'after-order actions answered as declared (cancels and deliveries took place)',
      ok: afterOff.length === 0 && (after['cancel 202'] ?? 0) > 0 && (after['delivery 200'] ?? 0) > 0,
      value: `${after['cancel 202'] ?? 0} cancels, ${after['delivery 200'] ?? 0} deliveries, ${after['completion 200'] ?? 0} completions; ${afterOff.length} unexpected answer kinds`,
      details: afterOff.map((k) => ({ [k]: after[k] })),
    });
    if (cluster) {
      const planned = plan.filter((p) => p.fault.kind.startsWith('partition-') || p.fault.kind === 'isolate-service').length;
      const p = summarize(faults);
      checked.results.push({ name: 'every planned partition cut, held and healed, the cut-off side whole again', ok: p.partitions === planned && p.healed === planned, value: `${p.healed} of ${planned}`, details: faults.filter((f) => f.fault.startsWith('partition:') && !f.partition) });
    }
    checked.results.push({ name: 'every planned fault injected', ok: faults.every((f) => !f.error) && faults.length === plan.length, value: `${faults.filter((f) => !f.error).length} of ${plan.length}`, details: faults.filter((f) => f.error) });

    const sorted = [...checked.terminalMs].sort((a, b) => a - b);
    const pct = (p: number): number => Math.round((sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0) / 100) / 10;
    const report: ChaosReport = {
      ok: checked.results.every((r) => r.ok),
      seed: opts.seed,
      profile: opts.profile,
      started_at: new Date(started).toISOString(),
      duration_s: Math.round((Date.now() - started) / 1000),
      machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, load_avg_end: loadavg().map((l) => Math.round(l * 100) / 100) },
      servers: infra.versions,
      faults,
      unexpected_exits: unexpected,
      storm: storm.stats,
      outcomes: checked.outcomes,
      reservations: checked.reservations,
      checkout_to_terminal_s: { p50: pct(50), p99: pct(99), max: pct(100) },
      invariants: checked.results,
      ...(cluster ? { partitions: summarize(faults) } : {}),
    };
    log(formatReport(report));
    return report;
  } finally {
    stopWatching();
    await stack?.stop().catch((e: unknown) => log(`[chaos] stack stop: ${(e as Error).message}`));
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
    if (!opts.keepInfra) await infra.down().catch((e: unknown) => log(`[chaos] infra down: ${(e as Error).message}`));
  }
}

/** A category, 3 hot products with scarce stock and 24 cold ones, restocked in every zone and known to carts. */
async function setUpCatalogue(s: Stack, rng: Rng, log: (line: string) => void): Promise<Product[]> {
  const slug = `chaos-${s.run.replace(/_/g, '-')}`.slice(0, 60);
  // the first request of each instance fetches the issuer's key set: a cold Keycloak may answer it late (503 AUTH.ISSUER_UNAVAILABLE)
  const cat = await waitFor(async () => {
    const r = await s.http('catalog', 'POST', '/categories', { name: 'Смартфоны chaos', slug, parent_id: null });
    return r.status === 503 ? undefined : r;
  }, 120_000, 'the catalog verifying tokens');
  if (cat.status !== 201) throw new Error(`category: ${cat.status} ${JSON.stringify(cat.body)}`);
  const products: Product[] = [];
  for (let i = 0; i < 27; i++) {
    const hot = i < 3;
    const p = await s.http('catalog', 'POST', '/products', { name: `Смартфон chaos ${i}`, category_id: cat.body['id'], price: `${rng.int(5_000, 150_000)}.00`, attributes: { color: 'черный' } });
    if (p.status !== 201) throw new Error(`product: ${p.status} ${JSON.stringify(p.body)}`);
    products.push({ id: String(p.body['id']), hot, stock: hot ? rng.int(8, 15) : 400 });
  }
  await s.relayCatalog();
  for (const p of products) {
    for (const zone of ZONES) {
      const r = await s.http('inventory', 'POST', `/stock/${p.id}/${zone}/restock`, { qty: p.stock, reason: 'chaos delivery' }, { 'idempotency-key': `chaos-${p.id}-${zone}` });
      if (r.status >= 300) throw new Error(`restock: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }
  // carts learns products (prices) from the products topic: wait until it takes every one
  for (const zone of ZONES) {
    const probe = await s.http('carts', 'POST', '/carts', { zone });
    for (const p of products) {
      await waitFor(async () => (await s.http('carts', 'PUT', `/carts/${String(probe.body['cart_id'])}/items/${p.id}`, { qty: 1 })).status === 200, 60_000, `carts knows ${p.id} in ${zone}`);
    }
  }
  log(`[chaos] catalogue: ${products.length} products (${products.filter((p) => p.hot).map((p) => `${p.stock} units`).join(', ')} of the hot ones per zone)`);
  return products;
}

/** Restarts a process that died without being killed by the plan (as an orchestrator would) and notes it: a failed invariant. */
function watchExits(s: Stack, expectedDown: Set<string>, unexpected: string[], log: (line: string) => void): () => void {
  const timer = setInterval(() => {
    for (const i of s.instances()) {
      if (expectedDown.has(i.id) || (i.child.exitCode === null && i.child.signalCode === null)) continue;
      const what = `${i.id} exited by itself (code ${i.child.exitCode}, signal ${i.child.signalCode}) at ${new Date().toISOString()}`;
      unexpected.push(what);
      log(`[chaos] ${what}; restarting it\n${s.tail(i.id, 15)}`);
      expectedDown.add(i.id);
      s.restart(i.id, 180_000)
        .catch((e: unknown) => log(`[chaos] restart of ${i.id} failed: ${(e as Error).message}`))
        .finally(() => expectedDown.delete(i.id));
    }
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}

async function injectAll(
  s: Stack,
  infra: ChaosServers,
  profile: Profile,
  plan: readonly PlannedFault[],
  stormStart: number,
  expectedDown: Set<string>,
  poisoned: Map<string, number>,
  log: (line: string) => void,
): Promise<InjectedFault[]> {
  const done: InjectedFault[] = [];
  const run = async (p: PlannedFault): Promise<void> => {
    const wait = stormStart + p.at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    const at = Date.now();
    const name = describeFault(p.fault);
    log(`[chaos] +${((at - stormStart) / 1000).toFixed(1)} s ${name}`);
    try {
      const outcome = await inject(s, infra, p.fault, expectedDown, poisoned);
      const detail = typeof outcome === 'string' ? outcome : outcome?.detail;
      const partition = typeof outcome === 'object' ? { failover_s: outcome.failover_s, held_s: outcome.held_s, after_heal_s: outcome.after_heal_s } : undefined;
      done.push({ planned_at_s: p.at, at_s: round1((at - stormStart) / 1000), fault: name, recovery_s: round1((Date.now() - at) / 1000), ...(detail ? { detail } : {}), ...(partition ? { partition } : {}) });
    } catch (e) {
      log(`[chaos] fault failed: ${name}: ${(e as Error).message}`);
      done.push({ planned_at_s: p.at, at_s: round1((at - stormStart) / 1000), fault: name, recovery_s: round1((Date.now() - at) / 1000), error: (e as Error).message });
    }
  };
  // each track's faults one after another, the tracks side by side; pauses each on its own
  const serially = async (track: readonly PlannedFault[]): Promise<void> => {
    for (const p of track) await run(p);
  };
  const on = (track: string): PlannedFault[] => plan.filter((p) => trackOf(p.fault, profile.topology) === track);
  await Promise.all([serially(on('servers')), serially(on('services')), ...on('pauses').map(run)]);
  return done.sort((a, b) => a.at_s - b.at_s);
}

async function inject(s: Stack, infra: ChaosServers, f: Fault, expectedDown: Set<string>, poisoned: Map<string, number>): Promise<string | PartitionOutcome | undefined> {
  switch (f.kind) {
    case 'partition-mongodb-primary':
    case 'partition-kafka-leader':
    case 'partition-cassandra-node':
    case 'isolate-service':
      if (!(infra instanceof ClusterChaosInfra)) throw new Error(`${f.kind} needs the cluster topology (a partitions profile)`);
      return injectPartition(s, infra, f);
    case 'kill-process':
      expectedDown.add(f.target);
      try {
        await s.signal(f.target, 'SIGKILL');
        await sleep(f.downMs);
        await s.restart(f.target, 180_000);
      } finally {
        expectedDown.delete(f.target);
      }
      return undefined;
    case 'pause-process':
      await s.signal(f.target, 'SIGSTOP');
      await sleep(f.pausedMs);
      await s.signal(f.target, 'SIGCONT');
      await s.waitReady(f.target, 120_000);
      return undefined;
    case 'kill-kafka':
      return infra.killAndRestart('kafka', f.downMs);
    case 'kill-cassandra':
      return infra.killAndRestart('cassandra', f.downMs, f.node);
    case 'kill-mongodb-primary': {
      const r = await infra.killMongoPrimary();
      return `${r.killed} killed, ${r.elected} elected`;
    }
    case 'poison': {
      const topic = s.topics[f.topic];
      const messages = Array.from({ length: f.count }, (_, i) => ({ key: `poison-${i}`, value: `{"not": "an envelope"`, headers: { 'x-chaos-poison': '1' } }));
      await waitFor(() => s.publishRaw(topic, messages).then(() => true), 60_000, `poison published on ${topic}`);
      poisoned.set(topic, (poisoned.get(topic) ?? 0) + f.count);
      return undefined;
    }
  }
}

/** `npm run catalog:verify` against this run's catalog database and read model: exit 0 = in sync. */
function catalogVerify(s: Stack): InvariantResult {
  const r = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['--tsconfig', 'tsconfig.base.json', 'apps/catalog/scripts/verify.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...s.envOf('catalog'), LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const summary = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  return { name: 'catalog:verify clean (MongoDB ↔ Cassandra read model)', ok: r.status === 0, value: summary || `exit ${r.status}`, details: r.status === 0 ? [] : [(r.stdout ?? '').slice(-2000), (r.stderr ?? '').slice(-1000)] };
}

export function formatReport(r: ChaosReport): string {
  const lines: string[] = [];
  const row = (a: string, b: string): void => void lines.push(`  ${a.padEnd(64)} ${b}`);
  lines.push('', `CHAOS seed=${r.seed} profile=${r.profile.name} storm=${r.profile.stormSeconds}s duration=${r.duration_s}s`);
  lines.push('faults injected:');
  for (const f of r.faults) {
    const clock = f.partition ? `failover ${f.partition.failover_s ?? '–'} s, held ${f.partition.held_s} s, whole ${f.partition.after_heal_s} s after the heal; ` : '';
    row(`+${f.at_s}s ${f.fault}`, f.error ? `FAILED: ${f.error}` : `recovered in ${f.recovery_s}s (${clock}${f.detail ?? ''})`);
  }
  if (r.partitions) {
    row('partitions cut and healed', `${r.partitions.healed} of ${r.partitions.partitions}`);
    for (const [kind, k] of Object.entries(r.partitions.by_kind)) row(`  ${kind}`, `${k.count}×; failover ${k.failover_s.join(', ')} s; after the heal ${k.after_heal_s.join(', ')} s`);
  }
  for (const u of r.unexpected_exits) row('unexpected exit', u);
  lines.push('checkouts:');
  row('carts created / checkouts attempted / accepted', `${r.storm.carts} / ${r.storm.attempted} / ${r.storm.accepted}`);
  row('requests retried (instance down, paused, 5xx) / abandoned', `${r.storm.retried} / ${r.storm.abandoned}`);
  row('refused answers', JSON.stringify(r.storm.refused));
  row('price changes during the storm', String(r.storm.priceChanges));
  row('after-order actions (cancel as owner, delivery/completion as operator)', JSON.stringify(r.storm.afterOrder ?? {}));
  lines.push('outcomes:');
  for (const [k, v] of Object.entries(r.outcomes).sort()) row(k, String(v));
  lines.push('reservations (how their holds ended):');
  for (const [k, v] of Object.entries(r.reservations ?? {}).sort()) row(k, String(v));
  row('checkout → terminal p50 / p99 / max', `${r.checkout_to_terminal_s.p50} / ${r.checkout_to_terminal_s.p99} / ${r.checkout_to_terminal_s.max} s`);
  lines.push('invariants:');
  for (const i of r.invariants) {
    row(`${i.ok ? 'PASS' : 'FAIL'} ${i.name}`, i.value);
    if (!i.ok) for (const d of i.details.slice(0, 5)) lines.push(`       ${JSON.stringify(d).slice(0, 400)}`);
  }
  lines.push(r.ok ? 'CHAOS: every invariant holds' : 'CHAOS: INVARIANTS VIOLATED', '');
  return lines.join('\n');
}

/** Partitions by kind: how many, and per partition the failover and the recovery after the heal. */
export function summarize(faults: readonly InjectedFault[]): PartitionSummary {
  const by_kind: PartitionSummary['by_kind'] = {};
  let partitions = 0;
  let healed = 0;
  for (const f of faults) {
    if (!f.fault.startsWith('partition:')) continue;
    partitions++;
    if (!f.partition) continue;
    healed++;
    const kind = f.fault.replace(/ for [\d.]+ s$/, '').replace(/(inventory|orders|carts|catalog-projector|catalog)(-\d)?/, '$1').replace(/cassandra-\d/, 'cassandra node');
    const k = (by_kind[kind] ??= { count: 0, failover_s: [], after_heal_s: [] });
    k.count++;
    k.failover_s.push(f.partition.failover_s);
    k.after_heal_s.push(f.partition.after_heal_s);
  }
  return { partitions, healed, by_kind };
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
