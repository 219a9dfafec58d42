import { Kafka, logLevel } from 'kafkajs';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { bearer, startStack, Stack } from '../e2e/harness';

/**
 * The projector's consumer crashes for real (its topic is deleted under it: kafkajs fetches
 * fail, it crashes, restarts and crashes again) — readiness must turn 503 and the metric 0,
 * instead of staying green on the first join.
 */
describe('projector readiness follows its consumer', () => {
  const env = testEnv();
  const topic = `catalog.products.v1.health-${uniqueName('t').toLowerCase()}`;
  const kafka = new Kafka({
    clientId: 'projector-health-test',
    brokers: env.kafkaBrokers,
    sasl: env.kafkaSasl,
    logLevel: logLevel.NOTHING,
  });
  let s: Stack;

  beforeAll(async () => {
    s = await startStack({ PROJECTOR_TOPIC: topic });
  });

  afterAll(async () => {
    await s?.close();
    const mongo = await createMongoClient(env.mongoUrl).connect();
    await mongo.db(s.config.MONGO_DB).dropDatabase();
    await mongo.close();
    const admin = kafka.admin();
    await admin.connect();
    const left = (await admin.listTopics()).filter((t) => t.startsWith(topic));
    if (left.length > 0) await admin.deleteTopics({ topics: left }).catch(() => undefined);
    await admin.disconnect();
  });

  const ready = async (): Promise<number> => (await fetch(`${s.projectorUrl}/health/ready`)).status;
  const metric = async (name: string): Promise<string | undefined> =>
    (await (await fetch(`${s.projectorUrl}/metrics`, { headers: await bearer('service') })).text())
      .split('\n')
      .find((l) => l.startsWith(name));

  it('drops the seen versions it keeps in memory when another member joins its group', async () => {
    const dropped = async (): Promise<number> =>
      Number((await metric('catalog_projection_seen_versions_dropped_total '))?.split(' ')[1] ?? NaN);
    const before = await dropped();
    expect(before).toBeGreaterThanOrEqual(1); // the first join
    const other = kafka.consumer({ groupId: s.config.PROJECTOR_GROUP_ID });
    await other.connect();
    try {
      await other.subscribe({ topics: [topic] });
      await other.run({ eachMessage: async () => undefined });
      await waitFor(async () => (await dropped()) > before, 60_000, 'the projector rebalanced');
    } finally {
      await other.disconnect();
    }
  });

  it('is ready while consuming; 503 with catalog_projector_consumer_up 0 once the consumer crashed', async () => {
    expect(await ready()).toBe(200);
    expect(await metric('catalog_projector_consumer_up ')).toBe('catalog_projector_consumer_up 1');

    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] });
    await admin.disconnect();

    await waitFor(
      async () => (await ready()) === 503,
      90_000,
      'projector readiness 503 after its consumer crashed',
    );
    const ops = { headers: await bearer('service') }; // the checks' errors are for operators only
    const body = (await (await fetch(`${s.projectorUrl}/health/ready`, ops)).json()) as {
      checks: Record<string, { status: string; error?: string }>;
    };
    expect(body.checks['projector-consumer']).toMatchObject({ status: 'down' });
    expect(await metric('catalog_projector_consumer_up ')).toBe('catalog_projector_consumer_up 0');
    expect(await metric('catalog_projector_consumer_crashes_total')).toMatch(
      /crashes_total\{restart="(true|false)"\} [1-9]/,
    );
    // Liveness stays up: the process answers, it just projects nothing.
    expect((await fetch(`${s.projectorUrl}/health`)).status).toBe(200);
  });
});
