/** The cluster topology's settings, read and validated once (like ../config.ts for the single node). */
import { join, resolve } from 'node:path';
import { loadConfig, parseHeap, parseTimeout, type InfraConfig } from '../config';

export interface ClusterConfig {
  readonly infra: InfraConfig;
  /** `.infra/cluster`: every node's data, logs and pid file, and the jars it runs from (never the single node's). */
  readonly dir: string;
  /** `CLUSTER_KAFKA_HEAP` per broker, default 512m. */
  readonly kafkaHeap: string;
  /** `CLUSTER_CASSANDRA_HEAP` per node, default 1g (the nine servers fit in ~8 GiB resident). */
  readonly cassandraHeap: string;
  /** `CLUSTER_START_TIMEOUT` (seconds): readiness of the whole cluster, default 420. */
  readonly startTimeoutMs: number;
  /** `MONGOD_BIN` (as for the single node), else the pinned wheel's mongod. */
  readonly mongodBin: string | undefined;
}

export function loadClusterConfig(env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const infra = loadConfig(env, { detectDocker: () => false });
  return {
    infra,
    dir: join(infra.infraDir, 'cluster'),
    kafkaHeap: parseHeap(env, 'CLUSTER_KAFKA_HEAP', '512m'),
    cassandraHeap: parseHeap(env, 'CLUSTER_CASSANDRA_HEAP', '1g'),
    startTimeoutMs: parseTimeout(env, 'CLUSTER_START_TIMEOUT', 420_000),
    mongodBin: env['MONGOD_BIN']?.trim() ? resolve(env['MONGOD_BIN'].trim()) : undefined,
  };
}
