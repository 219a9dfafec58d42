import { Consumer, Kafka, logLevel } from 'kafkajs';
import { kafkaSaslAs, testEnv, uniqueName } from '@mw/testing';
import { ensureTopics } from './kafka';

/**
 * The command bus is closed (ADR 0009), against the real local Kafka: a client that is nobody
 * cannot even connect, and an authenticated principal can neither write nor read a topic the ACL
 * table (libs/contracts access.ts) does not give it. Nothing here reaches a registry topic: every
 * attempt on one is refused before a record is written.
 */
describe('Kafka authentication and ACLs', () => {
  const env = testEnv();
  const client = (clientId: string, sasl: ReturnType<typeof kafkaSaslAs>): Kafka =>
    new Kafka({ clientId, brokers: env.kafkaBrokers, sasl, logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 } });
  const record = { key: 'intruder', value: JSON.stringify({ type: 'ReserveStock', payload: { hold_seconds: 86400 } }) };

  /** The protocol type (or the name) of the innermost error kafkajs raised. */
  const kind = (e: unknown): string => {
    let err = e as { type?: string; name?: string; message?: string; cause?: unknown; originalError?: unknown };
    while (!err.type && (err.cause ?? err.originalError)) err = (err.cause ?? err.originalError) as typeof err;
    return err.type ?? err.name ?? String(err.message);
  };
  const failure = async (attempt: () => Promise<unknown>): Promise<string> => {
    try {
      await attempt();
    } catch (e) {
      return kind(e);
    }
    return 'no error';
  };
  /** Subscribes and runs a consumer: the error its group crashes with, or 'consumed' if a message came through. */
  const consumeFailure = async (consumer: Consumer, topic: string): Promise<string> => {
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
    } catch (e) {
      return kind(e);
    }
    return new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('no error within 60s'), 60_000);
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        clearTimeout(timer);
        resolve(kind(payload.error));
      });
      void consumer
        .run({
          eachMessage: async () => {
            clearTimeout(timer);
            resolve('consumed');
          },
        })
        .catch((e: unknown) => {
          clearTimeout(timer);
          resolve(kind(e));
        });
    });
  };

  it('refuses a client with credentials the cluster does not know (produce and consume)', async () => {
    const stranger = client('stranger', { mechanism: 'scram-sha-512', username: 'stranger', password: 'guessed' });
    const producer = stranger.producer();
    expect(await failure(() => producer.connect())).toBe('KafkaJSSASLAuthenticationError');
    const consumer = stranger.consumer({ groupId: uniqueName('stranger') });
    expect(await failure(() => consumer.connect())).toBe('KafkaJSSASLAuthenticationError');
  });

  it('refuses a client without SASL', async () => {
    const anonymous = new Kafka({ clientId: 'anonymous', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3000, requestTimeout: 3000 });
    const admin = anonymous.admin();
    expect(await failure(() => admin.connect().then(() => admin.describeCluster()))).not.toBe('no error');
    await admin.disconnect().catch(() => undefined);
  });

  it('an authenticated principal that is not the topic\'s owner can neither write nor read it', async () => {
    // the test principal itself: ALLOW on its own prefixes, DENY on every registry topic
    const test = client('foreign', env.kafkaSasl);
    const mine = uniqueName('test.authz');
    await ensureTopics(test, [mine], 1);
    const producer = test.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({ topic: mine, messages: [record] }); // positive control: its own topic
      expect(await failure(() => producer.send({ topic: 'inventory.commands.v1', messages: [record] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
      expect(await failure(() => producer.send({ topic: 'orders.orders.v1', messages: [record] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await producer.disconnect();
    }
    const consumer = test.consumer({ groupId: uniqueName('foreign'), allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      expect(await consumeFailure(consumer, 'inventory.events.v1')).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await consumer.disconnect();
    }
    const admin = test.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [mine, `${mine}.dlq`] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('a service principal cannot write a topic it does not own: carts → inventory.commands.v1 is TOPIC_AUTHORIZATION_FAILED', async () => {
    const carts = client('carts-authz', kafkaSaslAs('carts'));
    const admin = carts.admin();
    await admin.connect();
    try {
      // positive control: carts is authenticated and may see the topic it writes
      const meta = await admin.fetchTopicMetadata({ topics: ['carts.checkout.v1'] });
      expect(meta.topics[0]?.name).toBe('carts.checkout.v1');
    } finally {
      await admin.disconnect();
    }
    const producer = carts.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      expect(await failure(() => producer.send({ topic: 'inventory.commands.v1', messages: [record] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
      expect(await failure(() => producer.send({ topic: 'inventory.events.v1', messages: [record] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await producer.disconnect();
    }
    // nor read another service's commands, even in a group under its own prefix
    const consumer = carts.consumer({ groupId: uniqueName('carts-authz'), allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      expect(await consumeFailure(consumer, 'inventory.commands.v1')).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await consumer.disconnect();
    }
  });
});
