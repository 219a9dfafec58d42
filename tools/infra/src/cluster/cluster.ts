/**
 * `npm run cluster -- up|down|status|env|cut <host>|heal <host>`: the cluster topology (ADR 0062).
 * Processes are managed like the single node's (pid files under .infra/cluster/<host>, process
 * groups, SIGTERM then SIGKILL), each started with `ip netns exec` in its own namespace.
 */
import { spawnSync } from 'node:child_process';
import { Client } from 'cassandra-driver';
import { MongoServerError } from 'mongodb';
import { InfraError, errorMessage } from '../errors';
import {
  readPidState,
  retryUntil,
  serverPaths,
  sleep,
  spawnDetached,
  stopProcess,
  isPortOpen,
  tailFile,
} from '../process';
import { adminKafka, describeCluster, warmGroupCoordinator } from '../servers/kafka';
import { kafkaCredentialEnv, provisionKafka } from '../servers/kafka-security';
import {
  ELECTION_TIMEOUT_MS,
  MONGOD_REPLICA_SET,
  unhealthyReason,
  withMember,
  type MemberState,
} from '../servers/mongodb';
import {
  createKeycloakServer,
  fetchDiscovery,
  issuerFor,
  keycloakArgs,
  keycloakEnv,
  keycloakLayout,
  KEYCLOAK_ADMIN,
  OIDC_AUDIENCE,
} from '../servers/keycloak';
import type { InfraContext, LaunchSpec } from '../types';
import type { ClusterConfig } from './config';
import {
  createNetwork,
  inNamespace,
  linkIsUp,
  listOwnNamespaces,
  namespacePids,
  removeNetwork,
  setLink,
} from './netns';
import {
  CLUSTER_CASSANDRA_RF,
  CLUSTER_TOPIC_POLICY,
  installJvmNodes,
  kafkaBrokers,
  prepareCassandraNode,
  prepareKafkaNode,
  prepareMongoNode,
} from './nodes';
import {
  CLUSTER_PORTS,
  clientPort,
  clusterHosts,
  findHost,
  hostsOf,
  identityHost,
  type ClusterHost,
  type NetHost,
} from './topology';

export type ClusterLog = (who: string, message: string) => void;

const contactPoints = (hosts: readonly ClusterHost[]): string[] =>
  hostsOf('cassandra', hosts).map((h) => `${h.address}:${CLUSTER_PORTS.cassandra}`);

export const mongoClusterUrl = (hosts: readonly ClusterHost[]): string =>
  `mongodb://${hostsOf('mongodb', hosts)
    .map((h) => `${h.address}:${CLUSTER_PORTS.mongodb}`)
    .join(',')}/?replicaSet=${MONGOD_REPLICA_SET}`;

const directMongo = (host: ClusterHost): string =>
  `mongodb://${host.address}:${CLUSTER_PORTS.mongodb}/?directConnection=true`;

/** Keycloak on its own host: HTTP on 8080, management (health) on 9000, the issuer pinned to that address. */
export const IDENTITY_PORTS = { http: 8080, management: 9000 } as const;
export const clusterIssuer = (): string =>
  issuerFor(`http://${identityHost().address}:${IDENTITY_PORTS.http}`);

/** What services, tests and the chaos suite need to use the cluster (`npm run -s cluster -- env`). */
export function clusterEnv(
  cfg: ClusterConfig,
  hosts: readonly ClusterHost[] = clusterHosts(),
): Record<string, string> {
  return {
    KAFKA_BROKERS: kafkaBrokers(hosts).join(','),
    KAFKA_REPLICATION_FACTOR: String(CLUSTER_TOPIC_POLICY.replicationFactor),
    KAFKA_MIN_INSYNC_REPLICAS: String(CLUSTER_TOPIC_POLICY.minInsyncReplicas),
    ...kafkaCredentialEnv(),
    CASSANDRA_CONTACT_POINTS: contactPoints(hosts).join(','),
    CASSANDRA_LOCAL_DATACENTER: cfg.infra.cassandraDatacenter,
    CASSANDRA_REPLICATION_FACTOR: String(CLUSTER_CASSANDRA_RF),
    MONGO_URL: mongoClusterUrl(hosts),
    OIDC_ISSUER: clusterIssuer(),
    OIDC_AUDIENCE,
  };
}

function ctxFor(cfg: ClusterConfig, who: string, log: ClusterLog): InfraContext {
  return { root: cfg.infra.root, infraDir: cfg.dir, log: (m) => log(who, m) };
}

async function launch(
  cfg: ClusterConfig,
  host: NetHost,
  spec: () => Promise<LaunchSpec>,
  log: ClusterLog,
): Promise<void> {
  const paths = serverPaths(cfg.dir, host.name);
  const state = readPidState(paths, cfg.dir);
  if (state.kind === 'alive') {
    log(host.name, `already running (pid ${state.pid})`);
    return;
  }
  const pid = await spawnDetached(await spec(), paths);
  log(host.name, `started pid ${pid} in namespace ${host.namespace} (${host.address})`);
}

/**
 * All three brokers up and provisioned. Each broker is asked on its own address, so a broker just
 * restarted after a SIGKILL counts only once it answers itself: before that the controller may
 * still list its old registration (until the session times out) and fence it a moment later. The
 * provisioning is retried with the check, for the same reason: a registration fenced between the
 * count and the topic check reads "RF 3 but 2 brokers" (issue 32).
 */
async function kafkaReady(cfg: ClusterConfig, hosts: readonly ClusterHost[], log: ClusterLog): Promise<void> {
  const brokers = kafkaBrokers(hosts);
  const allRegistered = async (): Promise<void> => {
    for (const broker of brokers) {
      const { brokers: registered } = await describeCluster([broker], 5000);
      if (registered < brokers.length)
        throw new Error(`${broker} sees ${registered} of ${brokers.length} brokers registered`);
    }
  };
  const provisioned = await retryUntil(
    async () => {
      await allRegistered();
      await warmGroupCoordinator(brokers);
      const added = await provisionKafka(adminKafka(brokers, 'infra-cluster', 8), CLUSTER_TOPIC_POLICY);
      await allRegistered(); // still three after the provisioning: none was fenced meanwhile
      return added;
    },
    cfg.startTimeoutMs,
    {
      intervalMs: 2000,
      onWait: (ms, err) =>
        log('kafka', `waiting for 3 brokers (${Math.round(ms / 1000)}s: ${errorMessage(err)})`),
    },
  );
  log(
    'kafka',
    `3 brokers; registry topics RF ${CLUSTER_TOPIC_POLICY.replicationFactor}, min ISR ${CLUSTER_TOPIC_POLICY.minInsyncReplicas}; ACLs ${provisioned.added} added, ${provisioned.removed} removed`,
  );
}

/** A driver connected through every node sees the other two up. */
export async function cassandraRing(
  cfg: ClusterConfig,
  hosts: readonly ClusterHost[],
  timeoutMs = 5000,
): Promise<{ up: number; of: number }> {
  const client = new Client({
    contactPoints: contactPoints(hosts),
    localDataCenter: cfg.infra.cassandraDatacenter,
    socketOptions: { connectTimeout: timeoutMs, readTimeout: timeoutMs },
  });
  try {
    await client.connect();
    const all = client.hosts.values();
    return { up: all.filter((h) => h.isUp()).length, of: all.length };
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

async function cassandraReady(
  cfg: ClusterConfig,
  hosts: readonly ClusterHost[],
  log: ClusterLog,
): Promise<void> {
  const expected = hostsOf('cassandra', hosts).length;
  await retryUntil(
    async () => {
      for (const h of hostsOf('cassandra', hosts)) {
        if (!(await isPortOpen(CLUSTER_PORTS.cassandra, h.address, 1000)))
          throw new Error(`${h.name} has no CQL yet`);
      }
      const ring = await cassandraRing(cfg, hosts);
      if (ring.up < expected || ring.of < expected)
        throw new Error(`${ring.up} of ${expected} nodes up in the ring`);
    },
    cfg.startTimeoutMs,
    {
      intervalMs: 3000,
      onWait: (ms, err) =>
        log('cassandra', `waiting for the ring (${Math.round(ms / 1000)}s: ${errorMessage(err)})`),
    },
  );
  log('cassandra', `${expected} nodes up in one ring`);
}

async function mongoStatus(host: ClusterHost): Promise<MemberState[] | undefined> {
  return withMember(directMongo(host), 2_000, async (client) => {
    try {
      const status = await client.db('admin').command({ replSetGetStatus: 1 });
      return status['members'] as MemberState[];
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 94) return undefined; // NotYetInitialized
      throw err;
    }
  });
}

async function mongoReady(cfg: ClusterConfig, hosts: readonly ClusterHost[], log: ClusterLog): Promise<void> {
  const members = hostsOf('mongodb', hosts);
  const first = members[0];
  if (!first) throw new InfraError('the topology has no mongod member');
  await retryUntil(
    () =>
      Promise.all(
        members.map((h) => withMember(directMongo(h), 1_000, (c) => c.db('admin').command({ hello: 1 }))),
      ),
    cfg.startTimeoutMs,
    {
      intervalMs: 1000,
      onWait: (ms) => log('mongodb', `waiting for ${members.length} members (${Math.round(ms / 1000)}s)`),
    },
  );
  if (!(await mongoStatus(first))) {
    log(
      'mongodb',
      `initiating replica set ${MONGOD_REPLICA_SET} (${members.map((h) => h.address).join(', ')})`,
    );
    await withMember(directMongo(first), 10_000, (c) =>
      c.db('admin').command({
        replSetInitiate: {
          _id: MONGOD_REPLICA_SET,
          members: members.map((h) => ({ _id: h.index - 1, host: `${h.address}:${CLUSTER_PORTS.mongodb}` })),
          settings: { electionTimeoutMillis: ELECTION_TIMEOUT_MS },
        },
      }),
    );
  }
  await retryUntil(
    async () => {
      const reason = unhealthyReason((await mongoStatus(first)) ?? [], members.length);
      if (reason) throw new Error(reason);
    },
    cfg.startTimeoutMs,
    {
      intervalMs: 1000,
      onWait: (ms, err) =>
        log('mongodb', `waiting for a primary (${Math.round(ms / 1000)}s: ${errorMessage(err)})`),
    },
  );
  log('mongodb', `replica set ${MONGOD_REPLICA_SET}: a primary and ${members.length - 1} secondaries`);
}

function launchNode(
  cfg: ClusterConfig,
  host: ClusterHost,
  hosts: readonly ClusterHost[],
  log: ClusterLog,
): Promise<void> {
  const ctx = ctxFor(cfg, host.name, log);
  const spec =
    host.role === 'kafka'
      ? () => prepareKafkaNode(cfg, ctx, host, hosts)
      : host.role === 'cassandra'
        ? () => Promise.resolve(prepareCassandraNode(cfg, ctx, host, hosts))
        : () => prepareMongoNode(cfg, ctx, host);
  return launch(cfg, host, spec, log);
}

/** The realm's Keycloak, unpacked into .infra/cluster/keycloak (never the single node's, which may be running). */
async function prepareIdentity(cfg: ClusterConfig, ctx: InfraContext): Promise<LaunchSpec> {
  await createKeycloakServer(cfg.infra).install(ctx);
  const layout = keycloakLayout(cfg.dir);
  const host = identityHost();
  return {
    ...inNamespace(host, 'bash', [
      layout.script,
      // the issuer stays pinned to the host's address; it listens on the namespace's loopback too (relaxMasterRealm)
      ...keycloakArgs({
        host: host.address,
        port: IDENTITY_PORTS.http,
        managementPort: IDENTITY_PORTS.management,
      }).map((a) => (a.startsWith('--http-host=') ? '--http-host=0.0.0.0' : a)),
    ]),
    env: keycloakEnv(cfg.infra.keycloakHeap),
    cwd: layout.distDir,
  };
}

async function identityReady(cfg: ClusterConfig, log: ClusterLog): Promise<void> {
  await retryUntil(() => fetchDiscovery(clusterIssuer(), 5000), cfg.startTimeoutMs, {
    intervalMs: 2000,
    onWait: (ms, err) =>
      log('keycloak', `waiting for the realm (${Math.round(ms / 1000)}s: ${errorMessage(err)})`),
  });
  relaxMasterRealm();
  log('keycloak', `issuer ${clusterIssuer()}; master realm over plain HTTP`);
}

/**
 * The master realm requires HTTPS from every address but loopback and the private ranges, and
 * 198.18.0.0/15 is neither: the test users' admin calls (libs/testing keycloak-users) were refused
 * with 403 "HTTPS required". Set it to NONE through the admin API on the namespace's own loopback,
 * which the master realm accepts over HTTP (the mobile-world realm file already says none).
 */
function relaxMasterRealm(): void {
  const base = `http://127.0.0.1:${IDENTITY_PORTS.http}`;
  const script = [
    `token=$(curl -sSf -d grant_type=password -d client_id=admin-cli -d username="$KC_USER" -d password="$KC_PASSWORD" ${base}/realms/master/protocol/openid-connect/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `curl -sSf -X PUT -H "authorization: Bearer $token" -H 'content-type: application/json' -d '{"sslRequired":"NONE"}' ${base}/admin/realms/master`,
  ].join(' && ');
  const res = spawnSync('ip', ['netns', 'exec', identityHost().namespace, 'bash', '-c', script], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, KC_USER: KEYCLOAK_ADMIN.username, KC_PASSWORD: KEYCLOAK_ADMIN.password },
  });
  if (res.status !== 0)
    throw new InfraError(
      `keycloak: the master realm kept requiring HTTPS: ${(res.stderr || res.stdout || String(res.error)).trim()}`,
    );
}

export interface ClusterUpResult {
  readonly seconds: number;
  readonly env: Record<string, string>;
}

/** Network, then all nine servers at once, then each role's readiness. Idempotent: what runs is kept. */
export async function upCluster(cfg: ClusterConfig, log: ClusterLog): Promise<ClusterUpResult> {
  const started = Date.now();
  const hosts = clusterHosts();
  createNetwork([...hosts, identityHost()]);
  log('network', `bridge and ${hosts.length + 1} namespaces ready`);
  await installJvmNodes(cfg, ctxFor(cfg, 'install', log));
  await launch(cfg, identityHost(), () => prepareIdentity(cfg, ctxFor(cfg, 'keycloak', log)), log);
  for (const host of hosts) await launchNode(cfg, host, hosts, log);
  const readiness = await Promise.allSettled([
    kafkaReady(cfg, hosts, log),
    cassandraReady(cfg, hosts, log),
    mongoReady(cfg, hosts, log),
    identityReady(cfg, log),
  ]);
  const failed = readiness.flatMap((r) => (r.status === 'rejected' ? [errorMessage(r.reason)] : []));
  if (failed.length > 0) {
    throw new InfraError(
      `the cluster is not ready (npm run cluster -- down removes it): ${failed.join('; ')}`,
      [...hosts, identityHost()].flatMap((h) => [
        `${h.name}:`,
        ...tailFile(serverPaths(cfg.dir, h.name).logFile, 3).map((l) => `  ${l.slice(0, 240)}`),
      ]),
    );
  }
  return { seconds: (Date.now() - started) / 1000, env: clusterEnv(cfg, hosts) };
}

/**
 * Every server stopped (SIGTERM to its group, SIGKILL after 30 s), whatever still lives in an
 * `mw-` namespace killed (a crashed `up` or a lost pid file), then the namespaces and the bridge.
 * Idempotent.
 */
export async function downCluster(cfg: ClusterConfig, log: ClusterLog): Promise<void> {
  const hosts = [...clusterHosts(), identityHost()];
  // a server cut off is stopped as well: heal first so nothing waits on a dead link
  for (const h of hosts) if (listOwnNamespaces().includes(h.namespace) && !linkIsUp(h)) setLink(h, 'up');
  await Promise.all(
    hosts.map(async (h) => {
      const result = await stopProcess(serverPaths(cfg.dir, h.name), cfg.dir, 30_000, (m) => log(h.name, m));
      if (result !== 'not-running') log(h.name, result);
    }),
  );
  for (const ns of listOwnNamespaces()) {
    const pids = namespacePids(ns);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    if (pids.length > 0) {
      log(ns, `killed ${pids.length} process(es) left in the namespace`);
      await sleep(500);
    }
  }
  const removed = removeNetwork();
  log('network', removed.length > 0 ? `removed ${removed.join(', ')}` : 'nothing to remove');
}

/** The pid of a server's process group (its pid file), or undefined when it is not running. */
export function nodePid(cfg: ClusterConfig, host: NetHost): number | undefined {
  const state = readPidState(serverPaths(cfg.dir, host.name), cfg.dir);
  return state.kind === 'alive' ? state.pid : undefined;
}

/**
 * Starts one server again after a SIGKILL (waits for its pid file to go stale first) and waits for
 * its role's readiness: all three brokers registered, the whole ring up, a primary and two
 * secondaries.
 */
export async function restartNode(cfg: ClusterConfig, host: ClusterHost, log: ClusterLog): Promise<void> {
  const hosts = clusterHosts();
  await retryUntil(
    () => {
      if (nodePid(cfg, host) !== undefined) throw new Error(`${host.name} still running`);
      return Promise.resolve();
    },
    30_000,
    { intervalMs: 200 },
  );
  await launchNode(cfg, host, hosts, log);
  if (host.role === 'kafka') await kafkaReady(cfg, hosts, log);
  else if (host.role === 'cassandra') await cassandraReady(cfg, hosts, log);
  else await mongoReady(cfg, hosts, log);
}

export function resolveHost(name: string): ClusterHost {
  const host = findHost(name);
  if (!host) {
    throw new InfraError(
      `no cluster host "${name}": one of ${clusterHosts()
        .map((h) => h.name)
        .join(', ')}`,
    );
  }
  return host;
}

export interface HostStatus {
  readonly host: ClusterHost;
  readonly pid: string;
  readonly link: 'up' | 'down' | 'absent';
  readonly reachable: boolean;
}

export async function clusterStatus(cfg: ClusterConfig): Promise<HostStatus[]> {
  const namespaces = new Set(listOwnNamespaces());
  return Promise.all(
    clusterHosts().map(async (host) => {
      const state = readPidState(serverPaths(cfg.dir, host.name), cfg.dir);
      const present = namespaces.has(host.namespace);
      return {
        host,
        pid: state.kind === 'alive' ? String(state.pid) : '-',
        link: present ? (linkIsUp(host) ? 'up' : 'down') : 'absent',
        reachable: present && (await isPortOpen(clientPort(host.role), host.address, 1000)),
      };
    }),
  );
}
