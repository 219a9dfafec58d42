/**
 * `INFRA=containers`: the same servers through testcontainers-node (needs a Docker engine).
 * testcontainers is imported dynamically so that local mode never loads it.
 *
 * Containers are started with `withReuse()` and a `mobile-world.infra` label: Ryuk does not reap
 * reused containers, so they outlive the CLI (`infra:up`) and later runs (jest globalSetup) reuse them.
 * `down` removes them by label.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { InfraConfig } from './config';
import { InfraError } from './errors';
import {
  KEYCLOAK_ADMIN,
  KEYCLOAK_IMAGE,
  OIDC_AUDIENCE,
  REALM_FILE_NAME,
  discoveryUrl,
  issuerFor,
  realmFile,
} from './servers/keycloak';
import { TRANSACTION_LIFETIME_LIMIT_SECONDS, withMember } from './servers/mongodb';
import { ALERT_RULES_FILE, PROMETHEUS_IMAGE, writeLocalConfig } from './servers/prometheus';
import { ZIPKIN_IMAGE } from './servers/zipkin';
import type { ServerName } from './types';

export const CONTAINER_LABEL = 'mobile-world.infra';

export const IMAGES = {
  kafka: process.env['KAFKA_IMAGE'] ?? 'apache/kafka:3.9.1',
  cassandra: process.env['CASSANDRA_IMAGE'] ?? 'cassandra:5.0',
  mongodb: process.env['MONGO_IMAGE'] ?? 'mongo:8.0',
  keycloak: process.env['KEYCLOAK_IMAGE'] ?? KEYCLOAK_IMAGE,
  prometheus: process.env['PROMETHEUS_IMAGE'] ?? PROMETHEUS_IMAGE,
  zipkin: process.env['ZIPKIN_IMAGE'] ?? ZIPKIN_IMAGE,
} as const;

/** The official Zipkin image (in-memory storage), its HTTP port published on the configured one. */
async function startZipkin(cfg: InfraConfig): Promise<string> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const port = cfg.ports.zipkin;
  await new GenericContainer(IMAGES.zipkin)
    .withEnvironment({ QUERY_PORT: String(port), STORAGE_TYPE: 'mem' })
    .withNetworkMode('host')
    .withLabels({ [CONTAINER_LABEL]: 'zipkin' })
    .withReuse()
    .withWaitStrategy(Wait.forHttp('/health', port))
    .start();
  return `http://${cfg.host}:${port}`;
}

/**
 * The official image on the host's network (the services it scrapes run on the host), with the
 * configuration local mode writes: rules and the services file mounted where it looks for them.
 */
async function startPrometheus(cfg: InfraConfig): Promise<string> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const layout = writeLocalConfig(cfg, cfg.infraDir, {
    ruleFile: '/etc/prometheus/alerts.yml',
    targetsDir: '/etc/prometheus/targets',
  });
  const port = cfg.ports.prometheus;
  await new GenericContainer(IMAGES.prometheus)
    .withNetworkMode('host')
    .withBindMounts([
      { source: layout.configFile, target: '/etc/prometheus/prometheus.yml', mode: 'ro' },
      { source: join(cfg.root, ALERT_RULES_FILE), target: '/etc/prometheus/alerts.yml', mode: 'ro' },
      { source: layout.targetsDir, target: '/etc/prometheus/targets', mode: 'ro' },
    ])
    .withCommand([
      '--config.file=/etc/prometheus/prometheus.yml',
      `--web.listen-address=${cfg.host}:${port}`,
      '--web.enable-lifecycle',
    ])
    .withLabels({ [CONTAINER_LABEL]: 'prometheus' })
    .withWaitStrategy(Wait.forLogMessage(/Server is ready to receive web requests/))
    .withStartupTimeout(cfg.startTimeoutMs)
    .withReuse()
    .start();
  return `http://${cfg.host}:${port}`;
}

async function startKafka(cfg: InfraConfig): Promise<string> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const port = cfg.ports.kafka;
  // The advertised listener must be reachable from the host: bind the same port on both sides.
  await new GenericContainer(IMAGES.kafka)
    .withExposedPorts({ container: port, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:29093',
      KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${port},CONTROLLER://localhost:29093`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '3',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_MIN_INSYNC_REPLICAS: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      KAFKA_HEAP_OPTS: `-Xmx${cfg.kafkaHeap} -Xms${cfg.kafkaHeap}`,
    })
    .withLabels({ [CONTAINER_LABEL]: 'kafka' })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(cfg.startTimeoutMs)
    .withReuse()
    .start();
  return `${host}:${port}`;
}

async function startCassandra(cfg: InfraConfig): Promise<string> {
  const { CassandraContainer } = await import('@testcontainers/cassandra');
  const container = await new CassandraContainer(IMAGES.cassandra)
    .withDatacenter(cfg.cassandraDatacenter)
    .withEnvironment({ MAX_HEAP_SIZE: cfg.cassandraHeap.toUpperCase(), HEAP_NEWSIZE: '128M' })
    .withLabels({ [CONTAINER_LABEL]: 'cassandra' })
    .withStartupTimeout(cfg.startTimeoutMs)
    .withReuse()
    .start();
  return container.getContactPoint();
}

async function startMongo(cfg: InfraConfig): Promise<string> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  // MongoDBContainer runs `--replSet rs0` and initiates a single-node replica set.
  const container = await new MongoDBContainer(IMAGES.mongodb)
    .withLabels({ [CONTAINER_LABEL]: 'mongodb' })
    .withStartupTimeout(cfg.startTimeoutMs)
    .withReuse()
    .start();
  const url = `${container.getConnectionString()}/?directConnection=true`;
  // The image's command is the container's own (`--replSet rs0`): the lifetime bound is set at run time.
  await withMember(url, cfg.startTimeoutMs, (c) =>
    c.db('admin').command({ setParameter: 1, transactionLifetimeLimitSeconds: TRANSACTION_LIFETIME_LIMIT_SECONDS }),
  );
  return url;
}

async function startKeycloak(cfg: InfraConfig): Promise<string> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const port = cfg.ports.keycloak;
  // Tokens name the issuer the host reaches: publish on the same port and pin the hostname to it.
  const issuer = issuerFor(`http://${host}:${port}`);
  await new GenericContainer(IMAGES.keycloak)
    .withExposedPorts({ container: 8080, host: port })
    .withCopyFilesToContainer([
      { source: realmFile(cfg.root), target: `/opt/keycloak/data/import/${REALM_FILE_NAME}` },
    ])
    .withEnvironment({
      KC_HOSTNAME: `http://${host}:${port}`,
      KC_HEALTH_ENABLED: 'true',
      KC_BOOTSTRAP_ADMIN_USERNAME: KEYCLOAK_ADMIN.username,
      KC_BOOTSTRAP_ADMIN_PASSWORD: KEYCLOAK_ADMIN.password,
      JAVA_OPTS_KC_HEAP: `-Xms64m -Xmx${cfg.keycloakHeap}`,
    })
    .withCommand(['start-dev', '--db=dev-mem', '--import-realm'])
    .withLabels({ [CONTAINER_LABEL]: 'keycloak' })
    .withWaitStrategy(Wait.forHttp(new URL(discoveryUrl(issuer)).pathname, 8080).forStatusCode(200))
    .withStartupTimeout(cfg.startTimeoutMs)
    .withReuse()
    .start();
  return issuer;
}

export async function upContainers(
  cfg: InfraConfig,
  names: readonly ServerName[],
  log: (name: ServerName, message: string) => void,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const starters: Record<ServerName, () => Promise<void>> = {
    kafka: async () => {
      env['KAFKA_BROKERS'] = await startKafka(cfg);
      // this container is PLAINTEXT without an authorizer: clients must not try SASL. Only
      // INFRA=local and docker compose run the SASL/ACL broker of ADR 0009.
      env['KAFKA_SASL_MECHANISM'] = 'none';
    },
    cassandra: async () => {
      env['CASSANDRA_CONTACT_POINTS'] = await startCassandra(cfg);
      env['CASSANDRA_LOCAL_DATACENTER'] = cfg.cassandraDatacenter;
    },
    mongodb: async () => {
      env['MONGO_URL'] = await startMongo(cfg);
    },
    keycloak: async () => {
      env['OIDC_ISSUER'] = await startKeycloak(cfg);
      env['OIDC_AUDIENCE'] = OIDC_AUDIENCE;
    },
    prometheus: async () => {
      env['PROMETHEUS_URL'] = await startPrometheus(cfg);
    },
    zipkin: async () => {
      env['ZIPKIN_URL'] = await startZipkin(cfg);
    },
  };
  const results = await Promise.allSettled(
    names.map(async (name) => {
      const started = Date.now();
      log(name, `starting container ${IMAGES[name]}`);
      await starters[name]();
      log(name, `ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    }),
  );
  const failed = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${names[i]}: ${String((r.reason as Error).message ?? r.reason)}`] : [],
  );
  if (failed.length > 0) throw new InfraError(`container start failed — ${failed.join('; ')}`);
  return env;
}

function docker(args: readonly string[]): string {
  const result = spawnSync('docker', [...args], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new InfraError(`docker ${args.join(' ')} failed: ${(result.stderr ?? '').trim().split('\n')[0]}`);
  return result.stdout ?? '';
}

export function downContainers(
  names: readonly ServerName[],
  log: (name: ServerName, message: string) => void,
): void {
  for (const name of names) {
    const ids = docker(['ps', '-aq', '--filter', `label=${CONTAINER_LABEL}=${name}`])
      .split('\n')
      .filter(Boolean);
    if (ids.length === 0) continue;
    docker(['rm', '-f', '-v', ...ids]);
    log(name, `removed container ${ids.join(', ')}`);
  }
}

export function containerStatus(
  names: readonly ServerName[],
): { server: ServerName; state: string; ports: string }[] {
  return names.map((name) => {
    const out = docker([
      'ps',
      '-a',
      '--filter',
      `label=${CONTAINER_LABEL}=${name}`,
      '--format',
      '{{.Status}}\t{{.Ports}}',
    ]).trim();
    const [state, ports] = out.split('\n')[0]?.split('\t') ?? [];
    return { server: name, state: state || 'not created', ports: ports ?? '' };
  });
}
