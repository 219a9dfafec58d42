import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'cassandra-driver';
import pino from 'pino';
import { createMessage, OutgoingMessage } from '@mw/contracts';
import { createKafka, ensureTopics, KafkaPublisher } from '@mw/messaging';
import { connectCassandra } from '@mw/persistence';
import { kafkaSaslEnv, testEnv, uniqueName, waitFor } from '@mw/testing';
import { readModelSchema } from './cassandra-schema';

const ROOT = join(__dirname, '../../../..');
const BUNDLE = join(ROOT, 'dist/apps/catalog-projector/main.js');
const PRODUCTS = 200;
const VERSIONS = 8; // ProductCreated v1, then price changes v2..v8: 1,600 events
const WAVES = 8;
const KILLS = 3;
const trace = { correlation_id: 'projector-crash', causation_id: null };
const CATEGORIES = ['aa', 'bb', 'cc', 'dd'].map((x) => x.repeat(12));
const ROOT_CATEGORY = 'ee'.repeat(12);

const productId = (i: number): string => `65f1${i.toString(16).padStart(20, '0')}`;

/** Version `version` of product `i`, addressed to the test's private copy of catalog.products.v1. */
function event(topic: string, i: number, version: number): OutgoingMessage {
  const category = CATEGORIES[i % CATEGORIES.length]!;
  const snapshot = {
    product_id: productId(i),
    version,
    name: `Crash ${i}`,
    category_id: category,
    ancestors: [ROOT_CATEGORY, category],
    price: 100_000 + version,
    currency: 'RUB' as const,
    attributes: {},
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: new Date(Date.parse('2026-03-01T10:00:00.000Z') + version * 1000).toISOString(),
  };
  const msg =
    version === 1
      ? createMessage('catalog.products.v1', 'ProductCreated', snapshot, trace)
      : createMessage(
          'catalog.products.v1',
          'ProductPriceChanged',
          { ...snapshot, previous_price: 100_000 + version - 1 },
          trace,
        );
  return { ...msg, topic } as unknown as OutgoingMessage;
}

/**
 * The projector bundle in its own process, SIGKILLed again and again while a burst is published
 * and applied in batches (ADR 0034 "Batches"): offsets are committed only after Cassandra
 * acknowledged a chunk's writes, so a restart re-applies whatever was in flight and nothing is
 * lost — every product ends at its last version in products_by_id, products_by_category and
 * product_versions.
 */
describe('projector SIGKILLed mid-burst', () => {
  const env = testEnv();
  const keyspace = uniqueName('proj_crash').toLowerCase();
  const topic = `catalog.products.v1.${uniqueName('crash').toLowerCase()}`;
  const group = uniqueName('catalog-projector-crash');
  const logger = pino({ level: 'silent' });
  const kafka = createKafka({
    brokers: env.kafkaBrokers,
    sasl: env.kafkaSasl,
    clientId: 'projector-crash-test',
    logger,
  });
  const publisher = new KafkaPublisher(kafka);
  let cass: Client;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    // Nx's cache makes this instant when the bundle is current (CI builds it before the tests)
    execFileSync('npx', ['nx', 'run', 'catalog:build-projector'], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, NX_DAEMON: 'false' },
    });
    await ensureTopics(kafka, [topic], 3);
    cass = await connectCassandra({
      contactPoints: env.cassandraContactPoints,
      localDataCenter: env.cassandraDatacenter,
      keyspace,
      replication: { class: 'SimpleStrategy', replication_factor: 1 },
      schema: readModelSchema,
    });
  }, 600_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await publisher.disconnect();
    await cass?.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await cass?.shutdown();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic, `${topic}.dlq`] }).catch(() => undefined);
    await admin.disconnect();
  });

  const port = 24_000 + Math.floor(Math.random() * 1000);
  function startProjector(): ChildProcess {
    const c = spawn(process.execPath, [BUNDLE], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...kafkaSaslEnv(env.kafkaSasl),
        CASSANDRA_KEYSPACE: keyspace,
        PROJECTOR_TOPIC: topic,
        PROJECTOR_GROUP_ID: group,
        PROJECTOR_START_FROM: 'earliest',
        PROJECTOR_HTTP_PORT: String(port),
        KAFKA_TOPIC_PARTITIONS: '3',
        LOG_LEVEL: 'error',
      },
    });
    child = c;
    return c;
  }
  async function kill(c: ChildProcess): Promise<void> {
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(-c.pid!, 'SIGKILL');
    await exited;
  }
  const versions = async (): Promise<Map<string, number>> =>
    new Map(
      (
        await cass.execute('SELECT product_id, version FROM product_versions', [], { fetchSize: 10_000 })
      ).rows.map((r) => [r['product_id'] as string, Number(r['version'])]),
    );
  const applied = async (): Promise<number> => [...(await versions()).values()].reduce((s, v) => s + v, 0);

  it('loses nothing: every product ends at its last version in every table', async () => {
    // Version v of every product is published in wave v; a wave goes out while the projector runs or lies dead.
    const waves = Array.from({ length: WAVES }, (_, w) =>
      Array.from({ length: PRODUCTS }, (_, i) => event(topic, i, w + 1)),
    );
    let proc = startProjector();
    let kills = 0;
    let last = 0;
    for (const [w, wave] of waves.entries()) {
      for (let i = 0; i < wave.length; i += 100) await publisher.publishAll(wave.slice(i, i + 100));
      if (kills < KILLS && w % 2 === 1) {
        // mid-burst: the projector has applied something of what is out, not all of it
        const before = await waitFor(
          async () => {
            const n = await applied();
            return n > 0 ? n : undefined;
          },
          120_000,
          'the projector applying the burst',
        );
        await kill(proc);
        kills++;
        expect(before).toBeLessThan(PRODUCTS * VERSIONS);
        await sleep(200);
        proc = startProjector();
      }
    }
    expect(kills).toBe(KILLS);
    await waitFor(
      async () => (await applied()) === PRODUCTS * VERSIONS,
      180_000,
      `every product at version ${VERSIONS}`,
    );
    await kill(proc);
    const seen = await versions();
    expect([...seen.values()].filter((v) => v !== VERSIONS)).toEqual([]);
    expect(seen.size).toBe(PRODUCTS);
    const cards = (
      await cass.execute('SELECT product_id, version, price FROM products_by_id', [], { fetchSize: 10_000 })
    ).rows;
    expect(
      cards.filter((r) => Number(r['version']) !== VERSIONS || Number(r['price']) !== 100_000 + VERSIONS),
    ).toEqual([]);
    expect(cards).toHaveLength(PRODUCTS);
    const rows = (
      await cass.execute('SELECT category_id, product_id, version FROM products_by_category', [], {
        fetchSize: 10_000,
      })
    ).rows;
    // each product listed in its category and the root, at its last version
    expect(rows).toHaveLength(PRODUCTS * 2);
    expect(rows.filter((r) => Number(r['version']) !== VERSIONS)).toEqual([]);
  });
});
