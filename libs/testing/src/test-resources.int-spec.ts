/**
 * The sweep and the per-run drop against the real servers: planted leftovers of a "crashed run"
 * (names with a two-hour-old uniqueName token) are removed, young test names and names that are not
 * test-made are left alone; a run's ledger drops exactly what the run named.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { Client as CassandraClient } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { testEnv, uniqueName } from './test-env';
import {
  dropRecordedTestResources,
  resourceServers,
  sweepTestResources,
  TEST_LEDGER_VARIABLE,
  type ResourceServers,
} from './test-resources';

const env = testEnv();
let servers: ResourceServers;
let cass: CassandraClient;
let mongo: MongoClient;
const admin = new Kafka({
  clientId: 'test-resources-spec',
  brokers: env.kafkaBrokers,
  sasl: env.kafkaSasl,
  logLevel: logLevel.NOTHING,
}).admin();

const tokenAt = (ms: number): string => `${ms.toString(36)}_${randomBytes(3).toString('hex')}`;
/** Topics of a planted name: on the test principal's prefix (ADR 0009), with its DLQ. */
const topicsOf = (name: string): string[] => [`test.${name}`, `test.${name}.dlq`];

async function plant(name: string): Promise<void> {
  await cass.execute(
    `CREATE KEYSPACE IF NOT EXISTS "${name}" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  );
  await mongo.db(name).collection('x').insertOne({ planted: true });
  await admin.createTopics({
    topics: topicsOf(name).map((topic) => ({ topic, numPartitions: 1 })),
    waitForLeaders: true,
  });
}

async function present(name: string): Promise<{ keyspace: boolean; database: boolean; topics: number }> {
  const ks = await cass.execute(
    'SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?',
    [name],
    { prepare: true },
  );
  const { databases } = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
  const topics = await admin.listTopics();
  return {
    keyspace: ks.rowLength > 0,
    database: databases.some((d) => d.name === name),
    topics: topics.filter((t) => topicsOf(name).includes(t)).length,
  };
}

beforeAll(async () => {
  servers = resourceServers()!;
  cass = new CassandraClient({
    contactPoints: env.cassandraContactPoints,
    localDataCenter: env.cassandraDatacenter,
    socketOptions: { readTimeout: 120_000 },
  });
  mongo = new MongoClient(env.mongoUrl, { runtimeAdapters: { os } });
  await admin.connect();
});

afterAll(async () => {
  await admin.disconnect();
  await mongo.close();
  await cass.shutdown();
});

describe('test resources', () => {
  it('the sweep removes test-made leftovers older than an hour, and nothing else', async () => {
    const old = `sweep_old_${tokenAt(Date.now() - 2 * 3_600_000)}`;
    const young = `sweep_young_${tokenAt(Date.now() - 10 * 60_000)}`;
    const notTestMade = `sweep_keep_${randomBytes(4).toString('hex')}`;
    for (const n of [old, young, notTestMade]) await plant(n);
    try {
      const dropped = await sweepTestResources(servers);
      expect(dropped.keyspaces).toContain(old);
      expect(dropped.databases).toContain(old);
      expect(dropped.topics).toEqual(expect.arrayContaining(topicsOf(old)));
      for (const kept of [young, notTestMade]) {
        expect(
          [...dropped.keyspaces, ...dropped.databases, ...dropped.topics].filter((n) => n.includes(kept)),
        ).toEqual([]);
        expect(await present(kept)).toEqual({ keyspace: true, database: true, topics: 2 });
      }
      expect(await present(old)).toEqual({ keyspace: false, database: false, topics: 0 });
    } finally {
      for (const n of [young, notTestMade]) {
        await cass.execute(`DROP KEYSPACE IF EXISTS "${n}"`);
        await mongo.db(n).dropDatabase();
        await admin.deleteTopics({ topics: topicsOf(n) }).catch(() => undefined);
      }
    }
  });

  it("a run's ledger drops every resource named after the run's uniqueName tokens, of any age, and only those", async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'mw-ledger-'));
    const ledger = join(dir, 'names.txt');
    const saved = process.env[TEST_LEDGER_VARIABLE];
    process.env[TEST_LEDGER_VARIABLE] = ledger;
    let mine: string;
    try {
      mine = uniqueName('ledger_probe').toLowerCase();
    } finally {
      process.env[TEST_LEDGER_VARIABLE] = saved;
    }
    const derived = `derived_${mine}`;
    const other = `ledger_other_${tokenAt(Date.now())}`;
    for (const n of [mine, derived, other]) await plant(n);
    try {
      const dropped = await dropRecordedTestResources(servers, ledger);
      expect(dropped.keyspaces.sort()).toEqual([derived, mine].sort());
      expect(dropped.databases.sort()).toEqual([derived, mine].sort());
      expect(dropped.topics.sort()).toEqual([...topicsOf(derived), ...topicsOf(mine)].sort());
      expect(await present(mine)).toEqual({ keyspace: false, database: false, topics: 0 });
      expect(await present(other)).toEqual({ keyspace: true, database: true, topics: 2 });
    } finally {
      await cass.execute(`DROP KEYSPACE IF EXISTS "${other}"`);
      await mongo.db(other).dropDatabase();
      await admin.deleteTopics({ topics: topicsOf(other) }).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
