import { Consumer, Kafka } from 'kafkajs';
import pino from 'pino';
import { createMessage, TopicName } from '@mw/contracts';
import { AppError } from '@mw/platform';
import { collectFrom, header, testEnv, uniqueName, waitFor } from '@mw/testing';
import { ConsumerRunner } from '../consumer/consumer-runner';
import { recordFromPayload } from '../consumer/nest-kafka';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { redrive } from './redrive';

const env = testEnv();
const logger = pino({ level: 'silent' });
const oid = (n: number): string => n.toString(16).padStart(24, '0');
const trace = { correlation_id: 'redrive-1', causation_id: null };

/**
 * Redrive against a real broker: two consumer groups read one topic; each dead-letters some
 * records. A redrive for one group moves exactly that group's records, resumes where a run cut
 * short by --max stopped (nothing skipped), and the other group never sees them again.
 */
describe('DLQ redrive per consumer group (real Kafka)', () => {
  const topic = uniqueName('test.redrive') as TopicName;
  const groupA = uniqueName('grp-a');
  const groupB = uniqueName('grp-b');
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  const consumers: Consumer[] = [];
  const handled = { [groupA]: new Map<string, number>(), [groupB]: new Map<string, number>() };
  /** Orders each group rejects (a deterministic failure: dead-lettered at once) until healed. */
  const failing = { [groupA]: new Set<string>(), [groupB]: new Set<string>() };

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'redrive-test', logger });
    await ensureTopics(kafka, [topic], 2);
    publisher = new KafkaPublisher(kafka);
    for (const group of [groupA, groupB]) {
      const runner = new ConsumerRunner(publisher, logger, group);
      const consumer = kafka.consumer({ groupId: group, allowAutoTopicCreation: false });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async (payload) => {
          await runner.run('inventory.commands.v1', recordFromPayload(payload), async (e) => {
            const id = e.payload.order_id;
            if (failing[group]!.has(id))
              throw new AppError('TEST.REJECTED', 'unprocessable', `${group} cannot take ${id} yet`);
            const k = `${e.type}:${id}`;
            handled[group]!.set(k, (handled[group]!.get(k) ?? 0) + 1);
          });
        },
      });
    }
  });

  afterAll(async () => {
    for (const c of consumers) await c.disconnect();
    await publisher.disconnect();
  });

  const send = (n: number) =>
    publisher.publish({
      ...createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(n) }, trace),
      topic,
    } as never);
  const count = (group: string, n: number, type = 'ReleaseStock'): number =>
    handled[group]!.get(`${type}:${oid(n)}`) ?? 0;

  it('moves exactly the failed group’s records, resumes after --max without skipping, and only that group handles them again', async () => {
    // Group A fails on orders 1..6, group B on 7..8; both handle everything else.
    for (let n = 1; n <= 6; n++) failing[groupA]!.add(oid(n));
    for (let n = 7; n <= 8; n++) failing[groupB]!.add(oid(n));
    for (let n = 1; n <= 8; n++) await send(n);
    const dlq = await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 8);
    expect(dlq.filter((r) => header(r.message, 'x-dlq-consumer-group') === groupA)).toHaveLength(6);
    await waitFor(
      async () =>
        [1, 2, 3, 4, 5, 6].every((n) => count(groupB, n) === 1) &&
        [7, 8].every((n) => count(groupA, n) === 1),
      30_000,
      'the other group handled each',
    );

    // A is fixed. Its redrive in three runs: --max 2, --max 1, then the rest.
    failing[groupA]!.clear();
    const first = await redrive({ kafka, topic, group: groupA, logger, max: 2 });
    const second = await redrive({ kafka, topic, group: groupA, logger, max: 1 });
    const rest = await redrive({ kafka, topic, group: groupA, logger });
    expect([first.moved, second.moved, rest.moved]).toEqual([2, 1, 3]);
    await waitFor(
      async () => [1, 2, 3, 4, 5, 6].every((n) => count(groupA, n) === 1),
      30_000,
      'group A handled each redriven record',
    );
    expect(await redrive({ kafka, topic, group: groupA, logger })).toMatchObject({ moved: 0 });

    // B's records stayed in the DLQ for B; B is fixed and redriven: A does not handle 7 and 8 again.
    failing[groupB]!.clear();
    expect(await redrive({ kafka, topic, group: groupB, logger })).toMatchObject({ moved: 2 });
    await waitFor(
      async () => [7, 8].every((n) => count(groupB, n) === 1),
      30_000,
      'group B handled its redriven records',
    );

    // A sentinel behind each redriven record (same key, so same partition): once both groups handled
    // the sentinels, each group has seen every redriven record — and handled only its own.
    for (let n = 1; n <= 8; n++) {
      await publisher.publish({
        ...createMessage('inventory.commands.v1', 'CommitStock', { order_id: oid(n) }, trace),
        topic,
      } as never);
    }
    await waitFor(
      async () =>
        [1, 2, 3, 4, 5, 6, 7, 8].every(
          (n) => count(groupA, n, 'CommitStock') === 1 && count(groupB, n, 'CommitStock') === 1,
        ),
      30_000,
      'sentinels handled by both',
    );
    for (let n = 1; n <= 8; n++) {
      expect({ n, a: count(groupA, n), b: count(groupB, n) }).toEqual({ n, a: 1, b: 1 });
    }
  }, 120_000);
});
