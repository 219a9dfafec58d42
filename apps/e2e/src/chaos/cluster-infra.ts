import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client as CassandraClient, policies, types } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import {
  CLUSTER_PORTS,
  type ClusterConfig,
  type ClusterHost,
  createNetwork,
  downCluster,
  findHost,
  hostsOf,
  loadClusterConfig,
  type NetHost,
  nodePid,
  rejoin,
  restartNode,
  serviceHosts,
  setLink,
  split,
  upCluster,
} from '@mw/infra';
import { createMongoClient } from '@mw/persistence';
import { testEnv } from '@mw/testing';
import { ChaosServers, killMongoPrimary } from './infra';

/**
 * The chaos run's servers on the cluster topology (ADR 0062): `npm run cluster -- up` (three
 * brokers, three Cassandra nodes, the replica set and Keycloak, each in a network namespace of its
 * own), the service instances on hosts of their own, and the partitions the nemesis makes of them.
 * A partition is a blackhole route both ways (tools/infra cluster/netns `split`) or a host's link
 * down; the cut-off side keeps running.
 */

/**
 * A partition after which the system never worked without the cut-off side (no new primary, no
 * leader moved, no quorum write, the instance never left its groups) fails the fault, and so the run.
 */
export function expectFailover(r: { failover: string | undefined }, what: string, detail: string): void {
  if (r.failover === undefined)
    throw new Error(`${what} did not happen while the partition held (${detail})`);
}

/** The outcome of a held partition, failing it when the system never worked without the cut-off side. */
export function outcomeOf(
  r: { failover: string | undefined; failover_s: number | null; held_s: number; after_heal_s: number },
  what: string,
  detail: string,
): PartitionOutcome {
  expectFailover(r, what, detail);
  return { detail, failover_s: r.failover_s, held_s: r.held_s, after_heal_s: r.after_heal_s };
}

/** What one partition did and how long the system took to get over it. */
export interface PartitionOutcome {
  readonly detail: string;
  /** From the cut until the system worked without the cut-off side (a new primary, new leaders, its partitions moved); null where nothing has to move. */
  readonly failover_s: number | null;
  readonly held_s: number;
  /** From the heal until the cut-off side was whole again (a secondary, in every ISR, coordinating writes at ALL, in its groups again). */
  readonly after_heal_s: number;
}

const PROBE_KEYSPACE = 'mw_chaos_probe';
const seconds = (from: number, to = Date.now()): number => Math.round((to - from) / 100) / 10;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** The host of a service instance: `inventory` → inventory-1, `catalog-projector-2` → projector-2. */
export const serviceHostName = (id: string): string => {
  const [, base = id, n = '1'] = /^(.*?)(?:-(\d+))?$/.exec(id) ?? [];
  return `${base.replace(/^catalog-projector$/, 'projector')}-${n}`;
};

/** Like @mw/testing's waitFor, probing every `intervalMs` (the probes here open a client each time). */
async function poll<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const started = Date.now();
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    await sleep(Math.min(deadline - Date.now(), intervalMs - (Date.now() - started)));
  }
}

/**
 * Cuts, holds, heals and measures: `failover` is polled from the cut (until it answers or the hold
 * ends), `recovered` from the heal (until it answers, at most `recoveryTimeoutMs`). The heal happens
 * whatever fails.
 */
export async function holdPartition(o: {
  readonly cut: () => void;
  readonly heal: () => void;
  readonly holdMs: number;
  readonly failover?: () => Promise<string | undefined>;
  readonly recovered: () => Promise<boolean>;
  readonly recoveryTimeoutMs?: number;
}): Promise<{
  failover_s: number | null;
  failover: string | undefined;
  held_s: number;
  after_heal_s: number;
}> {
  const t0 = Date.now();
  o.cut();
  let failover: string | undefined;
  let failoverS: number | null = null;
  try {
    if (o.failover) {
      const probe = o.failover;
      failover = await poll(probe, o.holdMs, 'failover').catch(() => undefined);
      if (failover !== undefined) failoverS = seconds(t0);
    }
    await sleep(t0 + o.holdMs - Date.now());
  } finally {
    o.heal();
  }
  const t1 = Date.now();
  await poll(
    async () => (await o.recovered()) || undefined,
    o.recoveryTimeoutMs ?? 180_000,
    'recovery after the heal',
    1000,
  );
  return { failover_s: failoverS, failover, held_s: seconds(t0, t1), after_heal_s: seconds(t1) };
}

export class ClusterChaosInfra implements ChaosServers {
  readonly cfg: ClusterConfig = loadClusterConfig();
  readonly versions: string[] = [];
  connection: Record<string, string> = {};
  private placed = new Map<string, NetHost>();

  constructor(private readonly log: (line: string) => void) {}

  get where(): string {
    return `${this.cfg.dir} (cluster topology)`;
  }

  async up(): Promise<Record<string, string>> {
    const r = await upCluster(this.cfg, (who, m) => this.log(`[cluster:${who}] ${m}`));
    this.connection = r.env;
    this.versions.push(
      `cluster topology up in ${Math.round(r.seconds)} s (ADR 0062)`,
      `kafka: ${hostsOf('kafka').length} KRaft brokers, RF ${r.env['KAFKA_REPLICATION_FACTOR']}, min ISR ${r.env['KAFKA_MIN_INSYNC_REPLICAS']}`,
      `cassandra: ${hostsOf('cassandra').length} nodes, keyspaces RF ${r.env['CASSANDRA_REPLICATION_FACTOR']}, LOCAL_QUORUM / LOCAL_SERIAL`,
      `mongodb: replica set of ${hostsOf('mongodb').length} members, w:majority`,
      `keycloak: ${r.env['OIDC_ISSUER']}`,
    );
    await this.cassandra(hostsOf('cassandra'), async (c) => {
      await c.execute(
        `CREATE KEYSPACE IF NOT EXISTS ${PROBE_KEYSPACE} WITH replication = {'class': 'NetworkTopologyStrategy', '${this.cfg.infra.cassandraDatacenter}': 3}`,
      );
      await c.execute(
        `CREATE TABLE IF NOT EXISTS ${PROBE_KEYSPACE}.probe (node int PRIMARY KEY, at timestamp)`,
      );
    });
    return r.env;
  }

  async down(): Promise<void> {
    await downCluster(this.cfg, (who, m) => this.log(`[cluster:${who}] ${m}`));
  }

  /** A host (namespace and address on the bridge) for each service instance, created now. */
  place(ids: readonly string[]): Map<string, NetHost> {
    const hosts = serviceHosts(ids.map(serviceHostName));
    createNetwork(hosts);
    this.placed = new Map(ids.map((id, i) => [id, hosts[i] as NetHost]));
    return this.placed;
  }

  hostOf(id: string): NetHost {
    const h = this.placed.get(id);
    if (!h) throw new Error(`${id} runs on no host of its own`);
    return h;
  }

  /** SIGKILL a broker (the checkout topic's leader of partition 0) or a Cassandra node, start it again after `downMs`. */
  async killAndRestart(server: 'kafka' | 'cassandra', downMs: number, node?: number): Promise<string> {
    const host =
      server === 'kafka' ? await this.leaderOf(this.probeTopic) : this.node('cassandra', node ?? 1);
    const pid = nodePid(this.cfg, host);
    if (pid === undefined) throw new Error(`${host.name} is not running`);
    process.kill(-pid, 'SIGKILL');
    await sleep(downMs);
    const t = Date.now();
    await restartNode(this.cfg, host, (who, m) => this.log(`[cluster:${who}] ${m}`));
    return `${host.name} pid ${pid}, ready ${seconds(t)} s after its start`;
  }

  killMongoPrimary(): Promise<{ killed: string; elected: string }> {
    return killMongoPrimary(this.connection['MONGO_URL'] ?? '');
  }

  /** The topic whose partition 0's leader is the broker the nemesis cuts or kills (the run's checkout topic). */
  probeTopic = '';
  /** The run's topics: every one of their partitions must have a leader elsewhere and, after the heal, all three replicas in sync. */
  runTopics: string[] = [];

  // --- MongoDB ---------------------------------------------------------------------------------

  /** The primary split from the other two members (clients still reach every member): it must step down. */
  async partitionMongoPrimary(holdMs: number): Promise<PartitionOutcome> {
    const members = hostsOf('mongodb');
    const primary = await poll(() => this.mongoPrimaryOf(members), 60_000, 'a MongoDB primary');
    const others = members.filter((m) => m.name !== primary.name);
    const rollbacksBefore = this.rollbackFiles(primary);
    let steppedDown: number | null = null;
    const t0 = Date.now();
    const r = await holdPartition({
      cut: () => void split(primary, others),
      heal: () => rejoin(primary, others),
      holdMs,
      failover: async () => {
        const elected = await this.mongoPrimaryOf(others);
        if (steppedDown === null && !(await this.isWritablePrimary(primary))) steppedDown = seconds(t0);
        return elected && steppedDown !== null ? elected.name : undefined;
      },
      recovered: async () => {
        const states = await Promise.all(members.map((m) => this.memberState(m)));
        return (
          states.filter((s) => s === 'PRIMARY').length === 1 &&
          states.every((s) => s === 'PRIMARY' || s === 'SECONDARY')
        );
      },
    });
    const rolledBack = this.rollbackFiles(primary) - rollbacksBefore;
    const detail = `${primary.name} split from ${others.map((o) => o.name).join(', ')}; ${r.failover ?? 'no member'} elected, ${primary.name} stepped down after ${steppedDown ?? '?'} s; ${rolledBack} rollback file(s) written on the heal`;
    return outcomeOf(r, 'an election with the old primary stepped down', detail);
  }

  private async mongoPrimaryOf(members: readonly ClusterHost[]): Promise<ClusterHost | undefined> {
    for (const m of members) if (await this.isWritablePrimary(m)) return m;
    return undefined;
  }

  private async isWritablePrimary(m: ClusterHost): Promise<boolean> {
    return this.direct(
      m,
      async (c) => (await c.db('admin').command({ hello: 1 }))['isWritablePrimary'] === true,
    ).catch(() => false);
  }

  private async memberState(m: ClusterHost): Promise<string> {
    return this.direct(m, async (c) => {
      const s = await c.db('admin').command({ replSetGetStatus: 1 });
      const self = (s['members'] as { self?: boolean; stateStr: string; health: number }[]).find(
        (x) => x.self,
      );
      const all = s['members'] as { health: number }[];
      return all.every((x) => x.health === 1) ? (self?.stateStr ?? 'UNKNOWN') : 'PEER DOWN';
    }).catch(() => 'UNREACHABLE');
  }

  private async direct<T>(
    m: ClusterHost,
    fn: (c: ReturnType<typeof createMongoClient>) => Promise<T>,
  ): Promise<T> {
    const c = createMongoClient(`mongodb://${m.address}:${CLUSTER_PORTS.mongodb}/?directConnection=true`, {
      serverSelectionTimeoutMS: 1500,
      connectTimeoutMS: 1500,
      socketTimeoutMS: 3000,
    });
    try {
      await c.connect();
      return await fn(c);
    } finally {
      await c.close().catch(() => undefined);
    }
  }

  /** Files mongod wrote under <dbpath>/rollback (documents it undid when it rejoined as a secondary). */
  private rollbackFiles(m: ClusterHost): number {
    const walk = (dir: string): number =>
      existsSync(dir)
        ? readdirSync(dir).reduce(
            (n, f) => n + (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : 1),
            0,
          )
        : 0;
    return walk(join(this.cfg.dir, m.name, 'data', 'rollback'));
  }

  // --- Kafka -----------------------------------------------------------------------------------

  /** The leader of the probe topic's partition 0 split from the other two brokers (clients still reach it). */
  async partitionKafkaLeader(holdMs: number): Promise<PartitionOutcome> {
    const brokers = hostsOf('kafka');
    const leader = await this.leaderOf(this.probeTopic);
    const others = brokers.filter((b) => b.name !== leader.name);
    const r = await holdPartition({
      cut: () => void split(leader, others),
      heal: () => rejoin(leader, others),
      holdMs,
      // as the brokers that still form the quorum see it: no partition of the run's topics led by the cut-off one
      failover: async () => {
        const parts = await this.partitions(others[0] as ClusterHost);
        return parts.length > 0 && parts.every((p) => p.leader !== leader.index && p.leader >= 0)
          ? 'moved'
          : undefined;
      },
      recovered: async () => {
        const parts = await this.partitions(others[0] as ClusterHost);
        return parts.length > 0 && parts.every((p) => p.isr.length === brokers.length);
      },
    });
    const detail = `${leader.name} split from ${others.map((o) => o.name).join(', ')}; ${r.failover ? 'its partitions led elsewhere' : 'its partitions never moved'}; every ISR full again after the heal`;
    return outcomeOf(r, 'a leader move', detail);
  }

  /** The broker leading `topic`'s partition 0. */
  async leaderOf(topic: string): Promise<ClusterHost> {
    return poll(
      async () => {
        for (const b of hostsOf('kafka')) {
          const parts = await this.partitions(b, [topic]).catch(() => []);
          const id = parts.find((p) => p.partition === 0)?.leader;
          if (id !== undefined && id >= 0) return this.node('kafka', id);
        }
        return undefined;
      },
      60_000,
      `the leader of ${topic}`,
    );
  }

  /** Every partition of the run's topics as one broker's metadata says (a client seeded with that broker only). */
  private async partitions(
    via: ClusterHost,
    topics: readonly string[] = this.runTopics,
  ): Promise<{ topic: string; partition: number; leader: number; isr: number[] }[]> {
    const env = testEnv();
    const kafka = new Kafka({
      clientId: 'chaos-nemesis',
      brokers: [`${via.address}:${CLUSTER_PORTS.kafka}`],
      ...(env.kafkaSasl ? { sasl: env.kafkaSasl } : {}),
      logLevel: logLevel.NOTHING,
      connectionTimeout: 2000,
      requestTimeout: 4000,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    try {
      await admin.connect();
      const meta = await admin.fetchTopicMetadata({ topics: [...topics] });
      return meta.topics.flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionId, leader: p.leader, isr: p.isr })),
      );
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  // --- Cassandra -------------------------------------------------------------------------------

  /** One node cut off from its two peers (`peers`: clients still reach it) or from everybody (`link`). */
  async partitionCassandraNode(
    index: number,
    mode: 'peers' | 'link',
    holdMs: number,
  ): Promise<PartitionOutcome> {
    const nodes = hostsOf('cassandra');
    const node = this.node('cassandra', index);
    const peers = nodes.filter((n) => n.name !== node.name);
    const r = await holdPartition({
      cut: () => (mode === 'peers' ? void split(node, peers) : setLink(node, 'down')),
      heal: () => (mode === 'peers' ? rejoin(node, peers) : setLink(node, 'up')),
      holdMs,
      // the two others still coordinate a write at LOCAL_QUORUM
      failover: async () =>
        (await this.probeWrite(peers[0] as ClusterHost, 'localQuorum')) ? 'quorum' : undefined,
      // whole again: every node coordinates a write that all three replicas acknowledge
      recovered: async () => (await Promise.all(nodes.map((n) => this.probeWrite(n, 'all')))).every(Boolean),
    });
    const detail = `cassandra-${index} cut off from ${mode === 'peers' ? 'its peers (clients still reach it)' : 'everybody (link down)'}; a LOCAL_QUORUM write through the others ${r.failover ? 'went through' : 'never went through'}; writes at ALL through every node after the heal`;
    return outcomeOf(r, 'a LOCAL_QUORUM write without the cut node', detail);
  }

  /** A write coordinated by `node` only, at the consistency given: true when it was acknowledged. */
  private async probeWrite(node: ClusterHost, consistency: 'all' | 'localQuorum'): Promise<boolean> {
    return this.cassandra([node], async (c) => {
      await c.execute(
        `INSERT INTO ${PROBE_KEYSPACE}.probe (node, at) VALUES (?, toTimestamp(now()))`,
        [node.index],
        { prepare: true, consistency: types.consistencies[consistency] },
      );
      return true;
    }).catch(() => false);
  }

  private async cassandra<T>(
    nodes: readonly ClusterHost[],
    fn: (c: CassandraClient) => Promise<T>,
  ): Promise<T> {
    const dc = this.cfg.infra.cassandraDatacenter;
    const points = nodes.map((n) => `${n.address}:${CLUSTER_PORTS.cassandra}`);
    const c = new CassandraClient({
      contactPoints: points,
      localDataCenter: dc,
      policies: {
        loadBalancing: new policies.loadBalancing.AllowListPolicy(
          new policies.loadBalancing.DCAwareRoundRobinPolicy(dc),
          points,
        ),
        retry: new policies.retry.FallthroughRetryPolicy(),
      },
      socketOptions: { connectTimeout: 2000, readTimeout: 4000 },
    });
    try {
      await c.connect();
      return await fn(c);
    } finally {
      await c.shutdown().catch(() => undefined);
    }
  }

  // --- services --------------------------------------------------------------------------------

  /** Splits a service instance from the three brokers (it still reaches the databases, the others reach its HTTP). */
  cutFromBrokers(id: string): void {
    split(this.hostOf(id), hostsOf('kafka'));
  }

  healFromBrokers(id: string): void {
    rejoin(this.hostOf(id), hostsOf('kafka'));
  }

  private node(role: 'kafka' | 'cassandra', index: number): ClusterHost {
    const h = findHost(`${role}-${index}`);
    if (!h) throw new Error(`no ${role}-${index}`);
    return h;
  }
}
