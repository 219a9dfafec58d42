import { KafkaJSNonRetriableError } from 'kafkajs';
import pino from 'pino';
import { HealthRegistry } from '@mw/platform';
import { join } from 'node:path';
import { PausingChild, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { oneTopicOptions } from '../test/one-topic-options';
import { BatchConsumer, BatchConsumerOptions, ChunkHandler } from './batch-consumer';

const env = testEnv();
const logger = pino({ level: 'silent' });

/**
 * A consumer that kafkajs will not restart (a failure it calls non-retriable, as a broker that
 * closes the SASL handshake while it restarts) is replaced by a new one in the same group: the
 * service consumes again and is ready again, without a process restart. Real Kafka.
 */
describe('BatchConsumer after a crash kafkajs does not restart (real Kafka)', () => {
  const topic = uniqueName('test.relaunch');
  const kafka = createKafka({
    brokers: env.kafkaBrokers,
    sasl: env.kafkaSasl,
    clientId: 'relaunch-test',
    logger,
  });
  let consumer: BatchConsumer | undefined;

  beforeAll(() => ensureTopics(kafka, [topic], 1));
  afterAll(async () => {
    await consumer?.stop();
  });

  it('is relaunched: not ready while down, then ready, and the chunk that crashed it is handled (its offsets were never committed)', async () => {
    const health = new HealthRegistry();
    const seen: string[] = [];
    const statuses: string[] = [];
    let failures = 1;
    consumer = new BatchConsumer(
      kafka,
      {
        name: 'relaunch-consumer',
        groupId: uniqueName('relaunch'),
        topics: [topic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 1000,
        partitionsConcurrently: 1,
        batchMax: 10,
        onStatus: (st) => void (statuses.at(-1) === st || statuses.push(st)),
      },
      async (records) => {
        if (failures-- > 0) throw new KafkaJSNonRetriableError('closed mid-handshake (test)');
        for (const r of records) seen.push(String(r.value));
      },
      health,
      logger,
    );
    const producer = kafka.producer();
    await producer.connect();
    try {
      await consumer.start();
      await producer.send({ topic, acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ value })) });
      await waitFor(
        async () => (seen.length === 3 ? true : undefined),
        60_000,
        'the records after the relaunch',
      );
      expect(seen).toEqual(['a', 'b', 'c']);
      await waitFor(async () => ((await health.run()).ready ? true : undefined), 30_000, 'ready again');
      expect(consumer.relaunches).toBe(1);
      expect(consumer.status).toBe('running');
    } finally {
      await producer.disconnect();
    }
    // down (crashed for good, not ready), a new consumer (restarting), then the group joined again
    expect(statuses.slice(statuses.indexOf('crashed'))).toEqual(['crashed', 'restarting', 'running']);
    expect(statuses.slice(0, 2)).toEqual(['starting', 'running']);
  });
});

/**
 * The linger (ADR 0015 §1): records that arrive one at a time while the consumer pauses after a
 * small batch come as one batch at the next fetch, instead of a fetch, a handler call and an offset
 * commit each. Real Kafka.
 */
describe('BatchConsumer linger (real Kafka)', () => {
  const topic = uniqueName('test.linger');
  const kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'linger-test', logger });
  let consumer: BatchConsumer | undefined;

  beforeAll(() => ensureTopics(kafka, [topic], 1));
  afterAll(async () => {
    await consumer?.stop();
  });

  it('after a small batch, the next fetch waits: eight records sent 50 ms apart are handled in two or three calls', async () => {
    const calls: string[][] = [];
    const health = new HealthRegistry();
    consumer = new BatchConsumer(
      kafka,
      {
        name: 'linger-consumer',
        groupId: uniqueName('linger'),
        topics: [topic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 1000,
        partitionsConcurrently: 1,
        batchMax: 100,
        lingerMs: 5000,
      },
      async (records) => void calls.push(records.map((r) => String(r.value))),
      health,
      logger,
    );
    const producer = kafka.producer();
    await producer.connect();
    try {
      await consumer.start();
      // joined before the first send: records sent before would all come in the first fetch anyway
      await waitFor(async () => ((await health.run()).ready ? true : undefined), 30_000, 'consumer joined');
      for (let i = 0; i < 8; i++) {
        await producer.send({ topic, acks: -1, messages: [{ value: `r${i}` }] });
        await new Promise((r) => setTimeout(r, 50));
      }
      await waitFor(async () => calls.flat().length === 8, 30_000, 'all eight handled');
      expect(calls.flat()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
      // the first record may come alone (the long poll answers at once); what follows waits out the linger
      // together. Without the linger each record is its own fetch and call (eight calls).
      expect(calls.length).toBeLessThanOrEqual(3);
    } finally {
      await producer.disconnect();
    }
  }, 60_000);
});

/**
 * Offset commits (ADR 0015 §14): one request per chunk at most, covering a transaction's commit
 * marker; with an interval, one request for what was handled meanwhile; a failing chunk and a stop
 * commit what was handled before them. Real Kafka, a transactional producer as the relays'.
 */
describe('BatchConsumer offset commits (real Kafka)', () => {
  const kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'commits-test', logger });
  const admin = kafka.admin();
  const consumers: BatchConsumer[] = [];
  beforeAll(() => admin.connect());
  afterAll(async () => {
    for (const c of consumers) await c.stop();
    await admin.disconnect();
  });

  /** A new one-partition topic and a new group for it. */
  async function freshTopic(): Promise<{ topic: string; groupId: string }> {
    const topic = uniqueName('test.commits');
    await ensureTopics(kafka, [topic], 1);
    return { topic, groupId: uniqueName('commits') };
  }

  /** The group's committed offset of partition 0, and the partition's end. */
  async function committed(groupId: string, topic: string): Promise<{ committed: string; end: string }> {
    const [g] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const [p] = await admin.fetchTopicOffsets(topic);
    return { committed: g?.partitions.find((x) => x.partition === 0)?.offset ?? '-1', end: p?.high ?? '?' };
  }

  function batchConsumer(
    groupId: string,
    topic: string,
    handle: ChunkHandler,
    more: Partial<BatchConsumerOptions> = {},
  ): BatchConsumer {
    const c = new BatchConsumer(
      kafka,
      { ...oneTopicOptions('commits-consumer', groupId, topic, 100), ...more },
      handle,
      new HealthRegistry(),
      logger,
    );
    consumers.push(c);
    return c;
  }

  /** Ten transactions of one record each, 100 ms apart: ten fetched batches, each ending in a commit marker. */
  async function tenTransactions(topic: string, joined: () => Promise<boolean>): Promise<void> {
    await waitFor(async () => (await joined()) || undefined, 30_000, 'consumer joined');
    const producer = kafka.producer({ transactionalId: uniqueName('commits-tx'), idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (let i = 0; i < 10; i++) {
        const txn = await producer.transaction();
        await txn.send({ topic, acks: -1, messages: [{ value: `r${i}` }] });
        await txn.commit();
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await producer.disconnect();
    }
  }

  it("commits once per chunk, past the transaction's commit marker: ten one-record transactions are ten commits, not twenty", async () => {
    const { topic, groupId } = await freshTopic();
    const calls: string[][] = [];
    const c = batchConsumer(groupId, topic, async (records) => void calls.push(records.map((r) => String(r.value))));
    await c.start();
    await tenTransactions(topic, async () => c.status === 'running');
    await waitFor(async () => (calls.flat().length === 10 ? true : undefined), 30_000, 'all ten handled');
    // every record, and every marker after it, is committed
    await waitFor(async () => {
      const o = await committed(groupId, topic);
      return o.committed === o.end || undefined;
    }, 10_000, 'committed up to the end, markers included');
    expect(c.commitRequests).toBe(calls.length);
  });

  it('with an interval, what was handled meanwhile waits for one commit; a stop commits it before leaving', async () => {
    const { topic, groupId } = await freshTopic();
    const seen: string[] = [];
    const c = batchConsumer(groupId, topic, async (records) => void seen.push(...records.map((r) => String(r.value))), {
      commitIntervalMs: 60_000,
    });
    await c.start();
    await tenTransactions(topic, async () => c.status === 'running');
    await waitFor(async () => (seen.length === 10 ? true : undefined), 30_000, 'all ten handled');
    expect(c.commitRequests).toBe(0);
    expect((await committed(groupId, topic)).committed).toBe('-1');
    await c.stop();
    expect(c.commitRequests).toBe(1);
    const o = await committed(groupId, topic);
    expect(o.committed).toBe(o.end);
  });

  it('with an interval, a timer commits what was handled without a new batch', async () => {
    const { topic, groupId } = await freshTopic();
    const seen: string[] = [];
    let calls = 0;
    const c = batchConsumer(groupId, topic, async (records) => void (calls++, seen.push(...records.map((r) => String(r.value)))), {
      commitIntervalMs: 500,
    });
    await c.start();
    const started = Date.now();
    await tenTransactions(topic, async () => c.status === 'running');
    const sending = Date.now() - started;
    await waitFor(async () => {
      const o = await committed(groupId, topic);
      return (seen.length === 10 && o.committed === o.end) || undefined;
    }, 10_000, 'committed up to the end by the timer');
    // one commit per 500 ms while the records came, and one after the last: not one per batch
    expect(c.commitRequests).toBeLessThanOrEqual(Math.ceil(sending / 500) + 1);
    expect(c.commitRequests).toBeLessThan(calls);
  });

  it('a chunk that fails first commits the chunks handled before it: after the relaunch only the failed one comes again', async () => {
    const { topic, groupId } = await freshTopic();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ value })) });
    await producer.disconnect();
    const seen: string[] = [];
    let failures = 1;
    const c = batchConsumer(
      groupId,
      topic,
      async (records) => {
        const values = records.map((r) => String(r.value));
        // a failure kafkajs does not retry: the next consumer reads from the committed offset
        if (values[0] === 'b' && failures-- > 0) throw new KafkaJSNonRetriableError('closed mid-handshake (test)');
        seen.push(...values);
      },
      { batchMax: 1, commitIntervalMs: 60_000 },
    );
    await c.start();
    await waitFor(async () => (seen.length >= 3 ? true : undefined), 60_000, 'the records after the relaunch');
    expect(c.relaunches).toBe(1);
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});

/**
 * SIGKILL between a chunk's handling and the interval's commit (ADR 0015 §14): the interval commits
 * only chunks whose handler resolved, never the one in flight. A child consumer (interval 300 ms,
 * one record per chunk) handles a and b, and is killed while it handles c, after the timer's commit;
 * the next consumer of the group gets c and d, not a or b.
 */
describe('BatchConsumer commit interval under SIGKILL (real Kafka)', () => {
  const kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'commit-kill-test', logger });
  const admin = kafka.admin();
  let next: BatchConsumer | undefined;
  let child: PausingChild | undefined;
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await child?.kill();
    await next?.stop();
    await admin.disconnect();
  });

  it('killed while a chunk is handled: the chunks handled before it were committed, the one in flight comes again', async () => {
    const topic = uniqueName('test.commitkill');
    const groupId = uniqueName('commitkill');
    await ensureTopics(kafka, [topic], 1);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: ['a', 'b', 'c', 'd'].map((value) => ({ value })) });
    await producer.disconnect();
    child = new PausingChild(join(__dirname, '../test/commit-child.ts'), [topic, groupId, 'c', '300']);
    await child.pausedAt('handling c');
    // the timer's commit of a and b (the interval is up while c is handled)
    const committed = async (): Promise<string> =>
      (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions.find((p) => p.partition === 0)?.offset ?? '-1';
    await waitFor(async () => (Number(await committed()) >= 2 ? true : undefined), 10_000, 'a and b committed');
    await child.kill();
    expect(await committed()).toBe('2');
    const seen: string[] = [];
    next = new BatchConsumer(
      kafka,
      oneTopicOptions('after-kill', groupId, topic, 10),
      async (records) => void seen.push(...records.map((r) => String(r.value))),
      undefined,
      logger,
    );
    await next.start();
    await waitFor(async () => (seen.length >= 2 ? true : undefined), 60_000, 'the records after the kill');
    await new Promise((r) => setTimeout(r, 500));
    expect(seen).toEqual(['c', 'd']);
  }, 120_000);
});
