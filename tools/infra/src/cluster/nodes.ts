/**
 * The three kinds of cluster node, built from the single-node server definitions (../servers):
 * the same jars, SCRAM credentials, ACLs, JVM flags and mongod options, with the settings a
 * replicated cluster needs — Kafka: three KRaft voters, RF 3, min ISR 2; Cassandra: three nodes
 * of one ring with evenly spaced tokens and hinted handoff; MongoDB: one member per host.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopicPolicy } from '@mw/messaging';
import { InfraError } from '../errors';
import type { InfraContext, LaunchSpec } from '../types';
import {
  cassandraJvmArgs,
  cassandraLayout,
  cassandraLogback,
  cassandraYaml,
  type CassandraLayout,
} from '../servers/cassandra';
import { ensureJava, findJar, javaBinary, resolveMavenClasspath } from '../servers/jvm';
import { withConfiguredTimerSlack } from '../servers/timer-slack';
import {
  kafkaClusterId,
  kafkaJvmArgs,
  kafkaLayout,
  kafkaLog4jProperties,
  kafkaServerProperties,
  runStorageFormat,
  type KafkaLayout,
} from '../servers/kafka';
import { KAFKA_ADMIN_PRINCIPAL, kafkaDevPassword, scramFingerprint } from '../servers/kafka-security';
import { installWheel, mongodArgs, mongoLayout, supervisorScript } from '../servers/mongodb';
import type { ClusterConfig } from './config';
import { inNamespace } from './netns';
import { CLUSTER_PORTS, hostsOf, type ClusterHost } from './topology';

/** Replication of every topic on the cluster (issue 32: RF 3, min.insync.replicas 2, so one broker may be lost). */
export const CLUSTER_TOPIC_POLICY: TopicPolicy = { replicationFactor: 3, minInsyncReplicas: 2 };
export const CLUSTER_CASSANDRA_RF = 3;
export const CLUSTER_NAME = 'mw-cluster';

const nodeDir = (cfg: ClusterConfig, host: ClusterHost): string => join(cfg.dir, host.name);
const sharedLib = (cfg: ClusterConfig, role: 'kafka' | 'cassandra'): string => join(cfg.dir, 'lib', role);

export const kafkaBrokers = (hosts: readonly ClusterHost[]): string[] =>
  hostsOf('kafka', hosts).map((h) => `${h.address}:${CLUSTER_PORTS.kafka}`);

/** Three voters, every internal topic RF 3 with min ISR 2, followers dropped from the ISR after 10 s. */
export function kafkaClusterOverrides(
  host: ClusterHost,
  hosts: readonly ClusterHost[],
): Record<string, string | number | boolean> {
  return {
    'node.id': host.index,
    'controller.quorum.voters': hostsOf('kafka', hosts)
      .map((h) => `${h.index}@${h.address}:${CLUSTER_PORTS.kafkaController}`)
      .join(','),
    'num.partitions': 3,
    'default.replication.factor': CLUSTER_TOPIC_POLICY.replicationFactor,
    'min.insync.replicas': CLUSTER_TOPIC_POLICY.minInsyncReplicas,
    'offsets.topic.replication.factor': 3,
    'transaction.state.log.replication.factor': 3,
    'transaction.state.log.min.isr': 2,
    'unclean.leader.election.enable': false,
    'replica.lag.time.max.ms': 10_000,
  };
}

function kafkaNodeLayout(cfg: ClusterConfig, host: ClusterHost): KafkaLayout {
  return { ...kafkaLayout(nodeDir(cfg, host)), libDir: sharedLib(cfg, 'kafka') };
}

function cassandraNodeLayout(cfg: ClusterConfig, host: ClusterHost): CassandraLayout {
  return { ...cassandraLayout(nodeDir(cfg, host)), libDir: sharedLib(cfg, 'cassandra') };
}

/** Murmur3 tokens spaced evenly over the ring, one per node (num_tokens 1). */
export function initialToken(index: number, nodes: number): string {
  const span = 2n ** 64n / BigInt(nodes);
  return String(-(2n ** 63n) + span * BigInt(index - 1));
}

/** The jars (into .infra/cluster/lib), once; the cluster id shared by the three brokers. */
export async function installJvmNodes(cfg: ClusterConfig, ctx: InfraContext): Promise<void> {
  ensureJava();
  const poms = join(cfg.infra.root, 'tools', 'infra', 'maven');
  await resolveMavenClasspath(ctx, {
    name: 'kafka',
    pomFile: join(poms, 'kafka', 'pom.xml'),
    libDir: sharedLib(cfg, 'kafka'),
  });
  await resolveMavenClasspath(ctx, {
    name: 'cassandra',
    pomFile: join(poms, 'cassandra', 'pom.xml'),
    libDir: sharedLib(cfg, 'cassandra'),
  });
}

/** server.properties and, on first use, the KRaft storage formatted with the cluster id and SCRAM credentials. */
export async function prepareKafkaNode(
  cfg: ClusterConfig,
  ctx: InfraContext,
  host: ClusterHost,
  hosts: readonly ClusterHost[],
): Promise<LaunchSpec> {
  const layout = kafkaNodeLayout(cfg, host);
  mkdirSync(layout.configDir, { recursive: true });
  mkdirSync(layout.dataDir, { recursive: true });
  const properties = kafkaServerProperties(
    {
      host: host.address,
      port: CLUSTER_PORTS.kafka,
      controllerPort: CLUSTER_PORTS.kafkaController,
      dataDir: layout.dataDir,
      nodeId: host.index,
      adminPassword: kafkaDevPassword(KAFKA_ADMIN_PRINCIPAL),
    },
    kafkaClusterOverrides(host, hosts),
  );
  writeFileSync(layout.serverProperties, properties);
  writeFileSync(layout.log4jProperties, kafkaLog4jProperties());
  if (!existsSync(join(layout.dataDir, 'meta.properties'))) {
    const idFile = join(cfg.dir, 'kafka-cluster.id');
    if (!existsSync(idFile)) writeFileSync(idFile, `${kafkaClusterId()}\n`);
    const clusterId = readFileSync(idFile, 'utf8').trim();
    ctx.log(`formatting KRaft storage (cluster id ${clusterId})`);
    await runStorageFormat(ctx, layout, clusterId);
    writeFileSync(layout.scramFile, `${scramFingerprint()}\n`);
  }
  return {
    ...inNamespace(host, javaBinary(), [
      ...kafkaJvmArgs(layout, cfg.kafkaHeap),
      'kafka.Kafka',
      layout.serverProperties,
    ]),
    cwd: layout.dir,
  };
}

export function prepareCassandraNode(
  cfg: ClusterConfig,
  ctx: InfraContext,
  host: ClusterHost,
  hosts: readonly ClusterHost[],
): LaunchSpec {
  const layout = cassandraNodeLayout(cfg, host);
  for (const d of [layout.configDir, layout.dataDir, layout.logDir, join(layout.dir, 'triggers')]) {
    mkdirSync(d, { recursive: true });
  }
  const ring = hostsOf('cassandra', hosts);
  writeFileSync(
    layout.yaml,
    cassandraYaml({
      host: host.address,
      nativePort: CLUSTER_PORTS.cassandra,
      storagePort: CLUSTER_PORTS.cassandraStorage,
      sslStoragePort: CLUSTER_PORTS.cassandraSslStorage,
      dataDir: layout.dataDir,
      clusterName: CLUSTER_NAME,
      commitlogSync: cfg.infra.cassandraCommitlogSync,
      paxosVariant: cfg.infra.cassandraPaxosVariant,
      seeds: ring.map((h) => `${h.address}:${CLUSTER_PORTS.cassandraStorage}`),
      // a node cut off and healed gets the writes it missed from its peers' hints
      hintedHandoff: true,
      // the ring is new and every node has its token: all three start at once, nothing to stream
      autoBootstrap: false,
    }),
  );
  writeFileSync(layout.logback, cassandraLogback());
  const token = `-Dcassandra.initial_token=${initialToken(host.index, ring.length)}`;
  const jvm = cassandraJvmArgs({
    layout,
    heap: cfg.cassandraHeap,
    jmxPort: CLUSTER_PORTS.cassandraJmx,
    jammJar: findJar(layout.libDir, 'jamm-'),
  }).map((arg) => (arg.startsWith('-Dcassandra.initial_token=') ? token : arg));
  if (!jvm.includes(token)) throw new InfraError('cassandraJvmArgs no longer sets cassandra.initial_token');
  const java = withConfiguredTimerSlack(
    { command: javaBinary(), args: [...jvm, 'org.apache.cassandra.service.CassandraDaemon'] },
    cfg.infra.cassandraTimerSlackUs,
    (m) => ctx.log(m),
  );
  return { ...inNamespace(host, java.command, java.args), cwd: layout.dir };
}

/** One member under the single node's supervisor script (a SIGKILLed mongod is started again), in its namespace. */
export async function prepareMongoNode(
  cfg: ClusterConfig,
  ctx: InfraContext,
  host: ClusterHost,
): Promise<LaunchSpec> {
  const binary = cfg.mongodBin ?? (await installWheel(ctx, mongoLayout(cfg.infra.infraDir, cfg.infra.root)));
  const dir = nodeDir(cfg, host);
  const dbPath = join(dir, 'data');
  mkdirSync(dbPath, { recursive: true });
  const script = join(dir, 'member.sh');
  const args = mongodArgs({
    host: host.address,
    port: CLUSTER_PORTS.mongodb,
    dbPath,
    logPath: join(dir, 'mongod.log'),
    oplogBatchDelayMs: cfg.infra.mongoOplogBatchDelayMs,
    replWriterThreads: cfg.infra.mongoReplWriterThreads,
  });
  writeFileSync(script, supervisorScript(binary, [args]), { mode: 0o755 });
  return { ...inNamespace(host, 'bash', [script]), cwd: dir };
}
