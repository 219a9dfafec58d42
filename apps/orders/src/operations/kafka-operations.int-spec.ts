import { createMessage } from '@mw/contracts';
import { ensureTopics, KafkaPublisher } from '@mw/messaging';
import { collectFrom, header, testEnv, uniqueName } from '@mw/testing';
import { bearer, OrdersHarness } from '../test/harness';

interface LagReport {
  groups: {
    group: string;
    total_lag: number;
    partitions: { topic: string; partition: number; lag: number }[];
  }[];
  projector: { group: string; total_lag: number } | null;
}
interface DeadLetters {
  topics: {
    topic: string;
    dlq: string;
    messages: {
      key: string | null;
      group: string | null;
      type: string | null;
      error_code: string | null;
      redriven: boolean;
    }[];
  }[];
}

/**
 * The operator's Kafka endpoints of orders against the real broker, with real Keycloak tokens. The
 * service's ops client connects as the tests' principal (private `test.*` topics and groups; in the
 * stack it is `ops` on the registry topics). The test plants what it reads: a consumer group with
 * a known position, and a message parked in a DLQ the way ConsumerRunner parks one.
 */
describe('operator: consumer lag, dead letters and redrive (real Kafka + Keycloak tokens)', () => {
  const env = testEnv();
  const topic = uniqueName('test.ops.commands');
  const projectorGroup = uniqueName('projector');
  const failedGroup = uniqueName('inventory');
  const h = new OrdersHarness({
    OPS_KAFKA_USERNAME: env.kafkaSasl?.username ?? 'none',
    ...(env.kafkaSasl ? { OPS_KAFKA_PASSWORD: env.kafkaSasl.password } : {}),
    OPS_DLQ_TOPICS: topic,
    OPS_PROJECTOR_GROUP: projectorGroup,
  });
  let publisher: KafkaPublisher;
  const orderId = '0000000000000000000000c1';

  beforeAll(async () => {
    await h.start(1);
    await ensureTopics(h.kafka, [topic], 1);
    publisher = new KafkaPublisher(h.kafka);
    // five records on the topic; the "projector" group has read two of them
    for (let i = 0; i < 5; i++)
      await publisher.sendRaw(topic, { key: `k${i}`, value: JSON.stringify({ i }), headers: {} });
    const admin = h.kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: projectorGroup, topic, partitions: [{ partition: 0, offset: '2' }] });
    await admin.disconnect();
    // one message parked by `failedGroup`, with the headers ConsumerRunner writes
    const parked = createMessage(
      'inventory.commands.v1',
      'ReleaseStock',
      { order_id: orderId },
      { correlation_id: 'ops-test', causation_id: null },
    );
    await publisher.sendRaw(`${topic}.dlq`, {
      key: orderId,
      value: JSON.stringify(parked.envelope),
      headers: {
        'x-dlq-reason': 'inventory could not take it',
        'x-dlq-error-code': 'TEST.REJECTED',
        'x-dlq-attempts': '1',
        'x-dlq-at': new Date().toISOString(),
        'x-dlq-consumer-group': failedGroup,
        'x-original-topic': topic,
        'x-original-partition': '0',
        'x-original-offset': '5',
      },
    });
  }, 180_000);
  afterAll(async () => {
    await publisher.disconnect();
    await h.stop();
  });

  const deadLetters = async () =>
    (await h.call<DeadLetters>('/operations/dead-letters', await bearer('otto'))).body.topics.find(
      (t) => t.topic === topic,
    );
  const redrive = async (who: Parameters<typeof bearer>[0] | null, t = topic) => {
    const res = await fetch(`${h.urls[0]}/operations/dead-letters/${t}/redrive`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(who ? await bearer(who) : {}) },
      body: JSON.stringify({ group: failedGroup }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('reports each group’s lag per partition, and the projector’s apart', async () => {
    const r = await h.call<LagReport>('/operations/consumer-lag', await bearer('otto'));
    expect(r.status).toBe(200);
    const g = r.body.groups.find((x) => x.group === projectorGroup);
    expect(g).toEqual({ group: projectorGroup, total_lag: 3, partitions: [{ topic, partition: 0, lag: 3 }] });
    expect(r.body.projector).toEqual(g);
  });

  it('lists the parked message, redrives it to its topic once (a repeat moves nothing), then shows it redriven', async () => {
    const before = await deadLetters();
    expect(before?.messages).toEqual([
      expect.objectContaining({
        key: orderId,
        group: failedGroup,
        type: 'ReleaseStock',
        error_code: 'TEST.REJECTED',
        redriven: false,
      }),
    ]);

    const first = await redrive('otto');
    expect(first).toEqual({
      status: 200,
      body: { dlq: `${topic}.dlq`, group: failedGroup, moved: 1, passed: 0 },
    });
    const again = await redrive('otto');
    expect(again.body).toMatchObject({ moved: 0 });

    const back = await collectFrom(h.kafka, [topic], (all) =>
      all.some((m) => m.message.key?.toString() === orderId),
    );
    const redriven = back.filter((m) => m.message.key?.toString() === orderId);
    expect(redriven).toHaveLength(1);
    expect(header(redriven[0]!.message, 'x-redrive-group')).toBe(failedGroup);
    expect(header(redriven[0]!.message, 'x-redrive-count')).toBe('1');
    expect((await deadLetters())?.messages.map((m) => m.redriven)).toEqual([true]);
  });

  it('refuses a topic it does not show (422), support (403) and a caller without a token (401)', async () => {
    expect((await redrive('otto', uniqueName('test.other'))).status).toBe(422);
    for (const path of ['/operations/consumer-lag', '/operations/dead-letters']) {
      expect((await h.call(path, await bearer('sue'))).status).toBe(403);
      expect((await h.call(path, {})).status).toBe(401);
    }
    expect((await redrive('sue')).status).toBe(403);
    expect((await redrive(null)).status).toBe(401);
    // nothing moved by the refused calls
    expect((await redrive('otto')).body).toMatchObject({ moved: 0 });
  });
});
