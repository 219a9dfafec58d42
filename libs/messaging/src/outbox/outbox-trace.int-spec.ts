import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { createMessage, TopicName } from '@mw/contracts';
import { createMongoClient } from '@mw/persistence';
import { inSpan } from '@mw/platform';
import { collectFrom, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { OutboxRelay } from './outbox-relay';
import { OUTBOX_FIELD, outboxPush, WithOutbox } from './outbox';

const env = testEnv();
const logger = pino({ level: 'warn' });
const id = (n: number): string => n.toString(16).padStart(24, '0');
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] });

/**
 * The trace context through the MongoDB outbox across a relay crash (ADR 0014): each transition
 * stores its traceparent with its entry; a relay process SIGKILLed mid-way, and the relay that
 * takes over, publish every entry under the trace of the transition that wrote it.
 */
describe('MongoDB outbox relay keeps each entry in its trace across a SIGKILL (real MongoDB + Kafka)', () => {
  let mongo: MongoClient;
  let kafka: Kafka;
  const dbName = uniqueName('outboxtr');
  const topic = uniqueName('test.outboxtr') as TopicName;

  beforeAll(async () => {
    provider.register({ propagator: new W3CTraceContextPropagator() });
    mongo = await createMongoClient(env.mongoUrl).connect();
    kafka = new Kafka({ clientId: 'outbox-trace-test', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    await OutboxRelay.ensureIndexes(mongo.db(dbName), ['aggregates']);
  });
  afterAll(async () => {
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('every published record carries the trace of its transition; the relay that takes over publishes each under a span of that trace', async () => {
    const total = 200;
    /** envelope id → the transition's trace and span ids */
    const written = new Map<string, { traceId: string; spanId: string }>();
    for (let n = 1; n <= total; n++) {
      await inSpan(`transition ${n}`, { kind: SpanKind.CONSUMER }, async (span) => {
        const msg = createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: id(n) }, { correlation_id: `c${n}`, causation_id: null });
        await mongo.db(dbName).collection<WithOutbox & { _id: string }>('aggregates').updateOne({ _id: id(n) }, { $set: { n }, ...outboxPush([{ ...msg, topic } as typeof msg]) }, { upsert: true });
        written.set(msg.envelope.id, span.spanContext());
      });
    }

    // a relay in its own process (no tracing there: the stored traceparent goes out as it is), killed mid-way
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../test/relay-child.ts'), env.mongoUrl, dbName, 'aggregates', env.kafkaBrokers.join(',')],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: join(__dirname, '../../../..'), detached: true, env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json' } },
    );
    const exited = new Promise((r) => child.once('exit', r));
    await collectFrom(kafka, [topic], (all) => all.length >= 10, 60_000);
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    const coll = mongo.db(dbName).collection('aggregates');
    expect(await coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } })).toBeGreaterThan(0);

    // the relay that takes over, traced: each record under a producer span whose parent is the stored span
    exporter.reset();
    const publisher = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-traced', logger }));
    const relay = new OutboxRelay({ db: mongo.db(dbName), collections: ['aggregates'], publisher, logger, name: 'test-relay', leaseMs: 2000 });
    await waitFor(async () => (await relay.drainOnce()) >= 0 && (await coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } })) === 0, 60_000, 'outbox drained');
    await relay.stop();
    await publisher.disconnect();

    const seen = await collectFrom(kafka, [topic], (all) => new Set(all.map((m) => JSON.parse(String(m.message.value)).id)).size >= total, 60_000);
    const spans = new Map(exporter.getFinishedSpans().map((s) => [s.spanContext().spanId, s]));
    let byKilledRelay = 0;
    let byNewRelay = 0;
    for (const m of seen) {
      const envelopeId = JSON.parse(String(m.message.value)).id as string;
      const origin = written.get(envelopeId);
      const tp = m.message.headers?.['traceparent']?.toString() ?? '';
      expect(tp.slice(3, 35)).toBe(origin?.traceId); // the transition's trace, whoever published
      const spanId = tp.slice(36, 52);
      if (spanId === origin?.spanId) {
        byKilledRelay++; // untraced process: the stored context as it was
        continue;
      }
      const publish = spans.get(spanId);
      expect(publish?.kind).toBe(SpanKind.PRODUCER);
      expect(publish?.parentSpanContext?.spanId).toBe(origin?.spanId);
      expect(publish?.attributes['mw.outbox']).toBe(`${dbName}.aggregates`);
      byNewRelay++;
    }
    expect(byKilledRelay).toBeGreaterThan(0);
    expect(byNewRelay).toBeGreaterThan(0);
  });
});
