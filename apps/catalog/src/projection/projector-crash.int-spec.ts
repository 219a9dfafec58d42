import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'cassandra-driver';
import pino from 'pino';
import { createMessage, OutgoingMessage } from '@mw/contracts';
import { createKafka, ensureTopics, KafkaPublisher } from '@mw/messaging';
import { kafkaSaslEnv, testEnv, uniqueName, waitFor } from '@mw/testing';
import { connectReadModelKeyspace } from '../test/read-model-keyspace';

const ROOT = join(__dirname, '../../../..');
const BUNDLE = join(ROOT, 'dist/apps/catalog-projector/main.js');
/** 1,000 events per partition and wave, fetched in one or a few chunks: a kill while the first lands leaves the rest undone. */
const PRODUCTS = 3000;
/** ProductCreated v1, then price changes v2 and v3: 9,000 events, three waves, a kill in each. */
const VERSIONS = 3;
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
    cass = await connectReadModelKeyspace(keyspace);
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
        // the killed member leaves the group within seconds, so the restarted one is not kept waiting
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
        KAFKA_HANDLER_TIMEOUT_MS: '5000',
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

  const cardVersion = async (id: string): Promise<number> =>
    Number(
      (
        await cass.execute('SELECT version FROM products_by_id WHERE product_id = ?', [id], { prepare: true })
      ).first()?.['version'] ?? 0,
    );

  it('loses nothing: every product ends at its last version in every table', async () => {
    let proc = startProjector();
    for (let version = 1; version <= VERSIONS; version++) {
      const wave = Array.from({ length: PRODUCTS }, (_, i) => event(topic, i, version));
      for (let i = 0; i < wave.length; i += 500) await publisher.publishAll(wave.slice(i, i + 500));
      // Mid-chunk: product 0 went out first, so it is in the first chunk of its partition; the
      // moment its card shows this version, that chunk's rows are landing and its seen versions
      // (written last) and the rest of the wave are not there yet.
      const deadline = Date.now() + 120_000;
      while ((await cardVersion(productId(0))) < version) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for product 0 at version ${version}`);
        await sleep(2);
      }
      await kill(proc);
      expect(await applied()).toBeLessThan(PRODUCTS * version);
      proc = startProjector();
    }
    await waitFor(
      async () => (await applied()) === PRODUCTS * VERSIONS,
      120_000,
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
  }, 600_000);
});
