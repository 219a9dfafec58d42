import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { InfraError } from './errors';
import type { ServerName } from './types';

/**
 * How the infrastructure is provided:
 * - `local`: JVM / native processes under `<root>/.infra`, managed by this CLI (no Docker needed);
 * - `containers`: testcontainers-node (needs a Docker engine);
 * - `external`: already running somewhere; connection strings come from the environment
 *   (KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS, MONGO_URL, OIDC_ISSUER, PROMETHEUS_URL) and the CLI only checks reachability.
 */
export type InfraMode = 'local' | 'containers' | 'external';

export const INFRA_MODES: readonly InfraMode[] = ['local', 'containers', 'external'];

export interface InfraPorts {
  readonly kafka: number;
  readonly kafkaController: number;
  readonly cassandra: number;
  readonly cassandraStorage: number;
  readonly cassandraSslStorage: number;
  readonly cassandraJmx: number;
  readonly mongo: number;
  /** Keycloak HTTP (issuer, token endpoint, JWKS). */
  readonly keycloak: number;
  /** Keycloak management interface (/health); Keycloak 26 would otherwise take 9000. */
  readonly keycloakManagement: number;
  /** Prometheus HTTP (UI, API, /-/ready). */
  readonly prometheus: number;
  /** Zipkin HTTP (UI, span intake /api/v2/spans, query API, /health). */
  readonly zipkin: number;
}

export interface ExternalEndpoints {
  readonly kafkaBrokers?: string;
  readonly cassandraContactPoints?: string;
  readonly mongoUrl?: string;
  /** `OIDC_ISSUER`, e.g. https://id.example.com/realms/mobile-world. */
  readonly oidcIssuer?: string;
  /** `OIDC_AUDIENCE` (default mobile-world-api). */
  readonly oidcAudience?: string;
  /** `PROMETHEUS_URL`, e.g. http://prometheus.example.com:9090. */
  readonly prometheusUrl?: string;
  /** `ZIPKIN_URL`, e.g. http://zipkin.example.com:9411. */
  readonly zipkinUrl?: string;
}

export interface InfraConfig {
  readonly root: string;
  readonly infraDir: string;
  readonly mode: InfraMode;
  /** Why this mode was chosen (for `status`). */
  readonly modeReason: string;
  /** Host all local servers bind to and clients connect to. */
  readonly host: string;
  readonly ports: InfraPorts;
  readonly external: ExternalEndpoints;
  /** JVM heap sizes, e.g. "512m". */
  readonly kafkaHeap: string;
  readonly cassandraHeap: string;
  readonly keycloakHeap: string;
  /** Cassandra datacenter name (SimpleSnitch always reports `datacenter1`). */
  readonly cassandraDatacenter: string;
  /** How the local Cassandra syncs its commit log before acknowledging a write (CASSANDRA_COMMITLOG_SYNC). */
  readonly cassandraCommitlogSync: CommitlogSync;
  /** Every Cassandra thread's timer slack in µs, 0 = the kernel's default (ADR 0015 §16). */
  readonly cassandraTimerSlackUs: number;
  /** `paxos_variant` of every Cassandra node (ADR 0015 §17). */
  readonly cassandraPaxosVariant: PaxosVariant;
  /** Readiness timeout per server, milliseconds. */
  readonly startTimeoutMs: number;
  /**
   * `INFRA_EXTERNAL` (local mode only): servers taken from the environment like INFRA=external
   * while the others run locally — e.g. a Kafka of one's own beside the team's databases.
   */
  readonly externalServers: readonly ServerName[];
  /** `PROMETHEUS_SCRAPE_INTERVAL` (also its rule evaluation interval), a Prometheus duration such as 15s. */
  readonly prometheusScrapeInterval: string;
  /** `ZIPKIN_HEAP`, default 512m (spans are kept in memory: 4 KiB of heap per span kept, zipkinMaxSpans). */
  readonly zipkinHeap: string;
  /**
   * `MONGO_OPLOG_BATCH_DELAY_MS`: how long a local secondary lets its oplog batch fill before it
   * applies it (mongod's `oplogBatchDelayMillis`; ADR 0015 §8): fewer, fuller applied batches per
   * second for that much more majority-write latency. 0 is the server's own default.
   */
  readonly mongoOplogBatchDelayMs: number;
  /**
   * `MONGO_REPL_WRITER_THREADS`: how many threads a local secondary applies an oplog batch with
   * (mongod's `replWriterThreadCount`, 1–256; ADR 0015 §15). By default the host's cores, at most
   * the server's own 16: a thread more than the cores is one more wakeup per applied batch.
   */
  readonly mongoReplWriterThreads: number;
}

const ALL_SERVERS: readonly ServerName[] = ['kafka', 'cassandra', 'mongodb', 'keycloak', 'prometheus', 'zipkin'];

/** `INFRA_EXTERNAL=cassandra,mongodb,...`: a bad name is an error naming the variable. */
export function parseExternalServers(env: NodeJS.ProcessEnv): ServerName[] {
  const raw = env['INFRA_EXTERNAL']?.trim();
  if (!raw) return [];
  const names: ServerName[] = [];
  for (const part of raw
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean)) {
    const name = part === 'mongo' ? 'mongodb' : part;
    if (!(ALL_SERVERS as readonly string[]).includes(name))
      throw new InfraError(`INFRA_EXTERNAL must list some of ${ALL_SERVERS.join(', ')}, got "${raw}"`);
    if (!names.includes(name as ServerName)) names.push(name as ServerName);
  }
  return names;
}

/** Defaults chosen not to clash with a developer's own Kafka (9092/9093), Cassandra (9042/7000/7199) or MongoDB (27017). */
export const DEFAULT_PORTS: InfraPorts = {
  kafka: 19092,
  kafkaController: 19093,
  cassandra: 19042,
  cassandraStorage: 17000,
  cassandraSslStorage: 17001,
  cassandraJmx: 17199,
  mongo: 27217,
  keycloak: 18080,
  keycloakManagement: 18081,
  prometheus: 19090,
  zipkin: 19411,
};

const PORT_VARS: Readonly<Record<keyof InfraPorts, string>> = {
  kafka: 'KAFKA_PORT',
  kafkaController: 'KAFKA_CONTROLLER_PORT',
  cassandra: 'CASSANDRA_PORT',
  cassandraStorage: 'CASSANDRA_STORAGE_PORT',
  cassandraSslStorage: 'CASSANDRA_SSL_STORAGE_PORT',
  cassandraJmx: 'CASSANDRA_JMX_PORT',
  mongo: 'MONGO_PORT',
  keycloak: 'KEYCLOAK_PORT',
  keycloakManagement: 'KEYCLOAK_MANAGEMENT_PORT',
  prometheus: 'PROMETHEUS_PORT',
  zipkin: 'ZIPKIN_PORT',
};

/** Environment variable that sets a given port (for error messages). */
export function portVariable(key: keyof InfraPorts): string {
  return PORT_VARS[key];
}

/** Parses a TCP port from the environment; a bad value is an error naming the variable. */
export function parsePort(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === '') return fallback;
  const text = raw.trim();
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new InfraError(`${variable} must be a TCP port number between 1 and 65535, got "${raw}"`);
  }
  return value;
}

/**
 * Both acknowledge a write only after its commit-log entry is fsynced (ADR 0002 "Commit log"):
 * `batch` (default) syncs as soon as writes are pending, writes arriving during a sync share the
 * next one; `group` syncs every 15 ms, whatever is pending. `periodic` is refused: it acknowledges
 * before the fsync.
 */
export type CommitlogSync = 'batch' | 'group';

/** The local replica set's secondaries' batch delay unless MONGO_OPLOG_BATCH_DELAY_MS says otherwise (ADR 0015 §8). */
export const DEFAULT_OPLOG_BATCH_DELAY_MS = 0;

/** mongod's own `replWriterThreadCount`. */
export const SERVER_REPL_WRITER_THREADS = 16;

/** `MONGO_REPL_WRITER_THREADS`: a whole number from 1 to 256; unset, the host's cores up to the server's 16 (ADR 0015 §15). */
export function parseReplWriterThreads(env: NodeJS.ProcessEnv, cores: number = availableParallelism()): number {
  const fallback = Math.max(1, Math.min(SERVER_REPL_WRITER_THREADS, cores));
  return parseWhole(env, 'MONGO_REPL_WRITER_THREADS', fallback, { min: 1, max: 256, unit: 'threads' });
}

/** Cassandra's threads' timer slack unless CASSANDRA_TIMER_SLACK_US says otherwise: 1 ms (ADR 0015 §16). */
export const DEFAULT_CASSANDRA_TIMER_SLACK_US = 1000;

/** `CASSANDRA_TIMER_SLACK_US`: microseconds from 0 (the kernel's default left alone) to 100000 (ADR 0015 §16). */
export function parseTimerSlack(env: NodeJS.ProcessEnv): number {
  return parseWhole(env, 'CASSANDRA_TIMER_SLACK_US', DEFAULT_CASSANDRA_TIMER_SLACK_US, {
    min: 0,
    max: 100_000,
    unit: 'microseconds',
  });
}

/** A whole number in [min, max] of `unit`, or the fallback when unset; a bad value is an error naming the variable. */
function parseWhole(
  env: NodeJS.ProcessEnv,
  variable: string,
  fallback: number,
  range: { readonly min: number; readonly max: number; readonly unit: string },
): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < range.min || n > range.max) {
    throw new InfraError(`${variable} must be a whole number of ${range.unit} from ${range.min} to ${range.max}, got "${raw}"`);
  }
  return n;
}

/** A whole number of milliseconds in [0, max]; a bad value is an error naming the variable. */
export function parseMillis(env: NodeJS.ProcessEnv, variable: string, fallback: number, max: number): number {
  return parseWhole(env, variable, fallback, { min: 0, max, unit: 'milliseconds' });
}

/** Cassandra's LWT protocol (`paxos_variant`): v1, the server's default, unless CASSANDRA_PAXOS_VARIANT=v2 (ADR 0015 §17). */
export type PaxosVariant = 'v1' | 'v2';

function parsePaxosVariant(env: NodeJS.ProcessEnv): PaxosVariant {
  return parseChoice(env, 'CASSANDRA_PAXOS_VARIANT', ['v1', 'v2'] as const, 'v1');
}

/** One of `choices`, or the fallback when unset; anything else is an error naming the variable and the choices. */
function parseChoice<T extends string>(env: NodeJS.ProcessEnv, variable: string, choices: readonly T[], fallback: T): T {
  const raw = env[variable]?.trim() || fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new InfraError(`${variable} must be ${choices.join(' or ')}, got "${raw}"`);
  }
  return raw as T;
}

function parseCommitlogSync(env: NodeJS.ProcessEnv): CommitlogSync {
  return parseChoice(env, 'CASSANDRA_COMMITLOG_SYNC', ['batch', 'group'] as const, 'batch');
}

export function parseHeap(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  if (!/^\d+[kKmMgG]$/.test(raw)) {
    throw new InfraError(`${variable} must be a JVM heap size such as 512m or 1g, got "${raw}"`);
  }
  return raw.toLowerCase();
}

/** A Prometheus duration for the scrape and evaluation intervals (1s … 5m). */
export function parsePrometheusInterval(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const match = /^(\d+)(ms|s|m)$/.exec(raw);
  const ms = match
    ? Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 } as const)[match[2] as 'ms' | 's' | 'm']
    : NaN;
  if (!(ms >= 1000 && ms <= 300_000)) {
    throw new InfraError(`${variable} must be a duration between 1s and 5m such as 15s, got "${raw}"`);
  }
  return raw;
}

export function parseTimeout(env: NodeJS.ProcessEnv, variable: string, fallbackMs: number): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallbackMs;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new InfraError(`${variable} must be a whole number of seconds, got "${raw}"`);
  }
  return seconds * 1000;
}

export function parsePorts(env: NodeJS.ProcessEnv): InfraPorts {
  const ports: InfraPorts = {
    kafka: parsePort(env, PORT_VARS.kafka, DEFAULT_PORTS.kafka),
    kafkaController: parsePort(env, PORT_VARS.kafkaController, DEFAULT_PORTS.kafkaController),
    cassandra: parsePort(env, PORT_VARS.cassandra, DEFAULT_PORTS.cassandra),
    cassandraStorage: parsePort(env, PORT_VARS.cassandraStorage, DEFAULT_PORTS.cassandraStorage),
    cassandraSslStorage: parsePort(env, PORT_VARS.cassandraSslStorage, DEFAULT_PORTS.cassandraSslStorage),
    cassandraJmx: parsePort(env, PORT_VARS.cassandraJmx, DEFAULT_PORTS.cassandraJmx),
    mongo: parsePort(env, PORT_VARS.mongo, DEFAULT_PORTS.mongo),
    keycloak: parsePort(env, PORT_VARS.keycloak, DEFAULT_PORTS.keycloak),
    keycloakManagement: parsePort(env, PORT_VARS.keycloakManagement, DEFAULT_PORTS.keycloakManagement),
    prometheus: parsePort(env, PORT_VARS.prometheus, DEFAULT_PORTS.prometheus),
    zipkin: parsePort(env, PORT_VARS.zipkin, DEFAULT_PORTS.zipkin),
  };
  const seen = new Map<number, string>();
  for (const key of Object.keys(ports) as (keyof InfraPorts)[]) {
    const other = seen.get(ports[key]);
    if (other !== undefined) {
      throw new InfraError(
        `${PORT_VARS[key]} and ${other} are both ${ports[key]}: every infra port must be different`,
      );
    }
    seen.set(ports[key], PORT_VARS[key]);
  }
  return ports;
}

/** True when a Docker engine answers `docker info` within a few seconds. */
export function dockerEngineAvailable(timeoutMs = 4000): boolean {
  try {
    const result = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
      stdio: 'ignore',
      timeout: timeoutMs,
    });
    return result.status === 0;
  } catch {
    return false;
  }
}

export function parseMode(
  env: NodeJS.ProcessEnv,
  detectDocker: () => boolean = dockerEngineAvailable,
): { mode: InfraMode; reason: string } {
  const raw = env['INFRA']?.trim().toLowerCase();
  if (raw) {
    if (!(INFRA_MODES as readonly string[]).includes(raw)) {
      throw new InfraError(`INFRA must be one of ${INFRA_MODES.join('|')}, got "${env['INFRA']}"`);
    }
    return { mode: raw as InfraMode, reason: 'INFRA' };
  }
  return detectDocker()
    ? { mode: 'containers', reason: 'Docker engine answered' }
    : { mode: 'local', reason: 'no Docker engine' };
}

/**
 * Repository root: $INFRA_ROOT, else the nearest ancestor of the working directory (or of
 * this file) that holds `tools/infra` and a package.json.
 */
export function findRoot(env: NodeJS.ProcessEnv = process.env, start: string = process.cwd()): string {
  const explicit = env['INFRA_ROOT']?.trim();
  if (explicit) return resolve(explicit);
  for (const from of [start, __dirname]) {
    let dir = resolve(from);
    for (;;) {
      if (existsSync(join(dir, 'tools', 'infra', 'src')) && existsSync(join(dir, 'package.json'))) return dir;
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return resolve(__dirname, '..', '..', '..');
}

export interface LoadConfigOptions {
  readonly root?: string;
  readonly detectDocker?: () => boolean;
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): InfraConfig {
  const root = options.root ?? findRoot(env);
  const ports = parsePorts(env);
  const { mode, reason } = parseMode(env, options.detectDocker);
  const external: ExternalEndpoints = {
    kafkaBrokers: env['KAFKA_BROKERS']?.trim() || undefined,
    cassandraContactPoints: env['CASSANDRA_CONTACT_POINTS']?.trim() || undefined,
    mongoUrl: env['MONGO_URL']?.trim() || undefined,
    oidcIssuer: env['OIDC_ISSUER']?.trim().replace(/\/+$/, '') || undefined,
    oidcAudience: env['OIDC_AUDIENCE']?.trim() || undefined,
    prometheusUrl: env['PROMETHEUS_URL']?.trim().replace(/\/+$/, '') || undefined,
    zipkinUrl: env['ZIPKIN_URL']?.trim().replace(/\/+$/, '') || undefined,
  };
  const infraDirRaw = env['INFRA_DIR']?.trim();
  return {
    root,
    infraDir: infraDirRaw ? resolve(root, infraDirRaw) : join(root, '.infra'),
    mode,
    modeReason: reason,
    host: '127.0.0.1',
    ports,
    external,
    kafkaHeap: parseHeap(env, 'KAFKA_HEAP', '512m'),
    cassandraHeap: parseHeap(env, 'CASSANDRA_HEAP', '1g'),
    keycloakHeap: parseHeap(env, 'KEYCLOAK_HEAP', '512m'),
    cassandraDatacenter: 'datacenter1',
    cassandraCommitlogSync: parseCommitlogSync(env),
    cassandraTimerSlackUs: parseTimerSlack(env),
    cassandraPaxosVariant: parsePaxosVariant(env),
    startTimeoutMs: parseTimeout(env, 'INFRA_START_TIMEOUT', 180_000),
    externalServers: parseExternalServers(env),
    prometheusScrapeInterval: parsePrometheusInterval(env, 'PROMETHEUS_SCRAPE_INTERVAL', '15s'),
    zipkinHeap: parseHeap(env, 'ZIPKIN_HEAP', '512m'),
    mongoOplogBatchDelayMs: parseMillis(env, 'MONGO_OPLOG_BATCH_DELAY_MS', DEFAULT_OPLOG_BATCH_DELAY_MS, 1000),
    mongoReplWriterThreads: parseReplWriterThreads(env),
  };
}

/** `host:port[,host:port]` → list of [host, port]; used for reachability checks in external mode. */
export function parseHostPorts(list: string, defaultPort: number, variable: string): [string, number][] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((entry) => {
      const withoutScheme = entry.replace(/^[a-z+]+:\/\//i, '');
      const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(withoutScheme);
      const host = match?.[1];
      const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
      if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
        throw new InfraError(`${variable} has an invalid host:port entry "${entry}"`);
      }
      return [host, port];
    });
}

/** Hosts of a mongodb:// URL (for reachability checks). */
export function mongoHosts(url: string): [string, number][] {
  const match = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]+)/.exec(url.trim());
  if (!match?.[1]) throw new InfraError(`MONGO_URL must look like mongodb://host:port/..., got "${url}"`);
  return parseHostPorts(match[1], 27017, 'MONGO_URL');
}
