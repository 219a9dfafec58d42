/**
 * Test-made keyspaces, databases and topics, and how they are removed.
 *
 * Every private name of a test or benchmark comes from uniqueName(): `<prefix>_<ms base36>_<6 hex>`
 * (derived names — `catalog_read_<that>`, `<topic>.dlq` — contain it). That token is what makes a
 * name "clearly test-made": the developer's own `catalog`, `carts`, `orders`, … never carry one, and
 * its time says how old the name is. Two ways out:
 *  - each Jest run (and each benchmark) records its tokens in a ledger (MW_TEST_LEDGER, set by the
 *    global setup) and its global teardown drops whatever contains one — also when tests failed;
 *  - `npm test` first sweeps leftovers of crashed runs: test-made names older than an hour (younger
 *    ones may belong to a run in progress on the same servers).
 */
import * as os from 'node:os';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { Client as CassandraClient } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import type { KafkaSasl } from '@mw/platform';

/** uniqueName's token: `_` + Date.now() in base36 (8 chars until 2059) + `_` + 6 hex digits. */
const TOKEN = /_([0-9a-z]{8})_([0-9a-f]{6})(?![0-9a-z])/;
const EARLIEST = Date.UTC(2024, 0, 1);

/** The uniqueName token in `name` (`<ms36>_<hex>`), if it carries a plausible one. */
export function testToken(name: string, now = Date.now()): { token: string; createdAt: number } | undefined {
  const m = TOKEN.exec(name);
  if (!m?.[1] || !m[2]) return undefined;
  const createdAt = parseInt(m[1], 36);
  if (createdAt < EARLIEST || createdAt > now + 86_400_000) return undefined;
  return { token: `${m[1]}_${m[2]}`, createdAt };
}

export const TEST_LEDGER_VARIABLE = 'MW_TEST_LEDGER';

/** Appends a name made by uniqueName to this run's ledger (when a run keeps one). */
export function recordTestName(name: string): void {
  const ledger = process.env[TEST_LEDGER_VARIABLE];
  if (!ledger) return;
  const t = testToken(name);
  if (t) appendFileSync(ledger, `${t.token}\n`);
}

export function ledgerTokens(ledger: string): Set<string> {
  if (!existsSync(ledger)) return new Set();
  return new Set(
    readFileSync(ledger, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

export interface ResourceServers {
  readonly kafkaBrokers: readonly string[];
  /** The `test` principal (ADR 0009): it may delete topics on the test prefixes only. */
  readonly kafkaSasl?: KafkaSasl | undefined;
  readonly mongoUrl: string;
  readonly cassandraContactPoints: readonly string[];
  readonly cassandraDatacenter: string;
}

export interface DroppedResources {
  readonly keyspaces: string[];
  readonly databases: string[];
  readonly topics: string[];
}

export const droppedCount = (d: DroppedResources): number =>
  d.keyspaces.length + d.databases.length + d.topics.length;

export function describeDropped(d: DroppedResources): string {
  return `${droppedCount(d)} (${d.keyspaces.length} keyspaces, ${d.databases.length} databases, ${d.topics.length} topics)`;
}

/** Only names carrying a uniqueName token are ever considered; `select` narrows them further. */
export async function dropTestResources(
  servers: ResourceServers,
  select: (name: string, token: { token: string; createdAt: number }) => boolean,
): Promise<DroppedResources> {
  const pick = (name: string): boolean => {
    const t = testToken(name);
    return t !== undefined && select(name, t);
  };
  const [keyspaces, databases, topics] = await Promise.all([
    dropKeyspaces(servers, pick),
    dropDatabases(servers, pick),
    dropTopics(servers, pick),
  ]);
  return { keyspaces, databases, topics };
}

async function dropKeyspaces(s: ResourceServers, pick: (n: string) => boolean): Promise<string[]> {
  const client = new CassandraClient({
    contactPoints: [...s.cassandraContactPoints],
    localDataCenter: s.cassandraDatacenter,
    socketOptions: { readTimeout: 120_000, connectTimeout: 15_000 },
  });
  try {
    const rows = (await client.execute('SELECT keyspace_name FROM system_schema.keyspaces')).rows;
    const names = rows.map((r) => String(r['keyspace_name'])).filter(pick);
    for (const name of names) await client.execute(`DROP KEYSPACE IF EXISTS "${name}"`);
    return names;
  } finally {
    await client.shutdown();
  }
}

async function dropDatabases(s: ResourceServers, pick: (n: string) => boolean): Promise<string[]> {
  const client = new MongoClient(s.mongoUrl, { runtimeAdapters: { os }, serverSelectionTimeoutMS: 15_000 });
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    const names = databases.map((d) => d.name).filter(pick);
    for (const name of names) await client.db(name).dropDatabase();
    return names;
  } finally {
    await client.close();
  }
}

async function dropTopics(s: ResourceServers, pick: (n: string) => boolean): Promise<string[]> {
  const admin = new Kafka({
    clientId: 'test-resources',
    brokers: [...s.kafkaBrokers],
    ...(s.kafkaSasl ? { sasl: s.kafkaSasl } : {}),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const names = (await admin.listTopics()).filter(pick);
    for (let i = 0; i < names.length; i += 50)
      await admin.deleteTopics({ topics: names.slice(i, i + 50), timeout: 60_000 });
    return names;
  } finally {
    await admin.disconnect();
  }
}

export const SWEEP_AGE_MS = 60 * 60 * 1000;

/** Leftovers of crashed runs: test-made names whose token is older than `olderThanMs`. */
export function sweepTestResources(
  servers: ResourceServers,
  olderThanMs = SWEEP_AGE_MS,
  now = Date.now(),
): Promise<DroppedResources> {
  return dropTestResources(servers, (_name, t) => t.createdAt < now - olderThanMs);
}

/** Drops what one run recorded in its ledger (any age), then removes the ledger. */
export async function dropRecordedTestResources(
  servers: ResourceServers,
  ledger: string,
): Promise<DroppedResources> {
  const tokens = ledgerTokens(ledger);
  const none: DroppedResources = { keyspaces: [], databases: [], topics: [] };
  if (tokens.size === 0) {
    rmSync(ledger, { force: true });
    return none;
  }
  const dropped = await dropTestResources(servers, (_name, t) => tokens.has(t.token));
  rmSync(ledger, { force: true });
  return dropped;
}

/** The servers from the connection variables (KAFKA_BROKERS, MONGO_URL, CASSANDRA_CONTACT_POINTS). */
export function resourceServers(env: NodeJS.ProcessEnv = process.env): ResourceServers | undefined {
  if (!env['KAFKA_BROKERS'] || !env['MONGO_URL'] || !env['CASSANDRA_CONTACT_POINTS']) return undefined;
  const mechanism = env['KAFKA_SASL_MECHANISM'];
  const sasl =
    (mechanism === 'scram-sha-512' || mechanism === 'scram-sha-256' || mechanism === 'plain') &&
    env['KAFKA_USERNAME'] &&
    env['KAFKA_PASSWORD']
      ? ({ mechanism, username: env['KAFKA_USERNAME'], password: env['KAFKA_PASSWORD'] } as KafkaSasl)
      : undefined;
  return {
    kafkaBrokers: env['KAFKA_BROKERS'].split(','),
    kafkaSasl: sasl,
    mongoUrl: env['MONGO_URL'],
    cassandraContactPoints: env['CASSANDRA_CONTACT_POINTS'].split(','),
    cassandraDatacenter: env['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1',
  };
}
