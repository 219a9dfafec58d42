import { Controller, DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { Kafka, Producer } from 'kafkajs';
import pino from 'pino';
import { createMessage, TopicName } from '@mw/contracts';
import {
  AppError,
  ConsumerTimeouts,
  HealthRegistry,
  KAFKA_CONSUMER_TIMEOUTS,
  Metrics,
  PlatformModule,
  runService,
} from '@mw/platform';
import { serviceToken, testEdgeSettings, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { ConsumerRunner, createConsumerRunner } from './consumer-runner';
import { recordFromContext } from './nest-kafka';

const env = testEnv();
const logger = pino({ level: 'silent' });
const oid = (n: number): string => n.toString(16).padStart(24, '0');

/**
 * The runner inside a service as main.ts starts it (runService, the Nest Kafka transport): the
 * partitions of one fetch are worked on concurrently by default (kafkajs waits for every batch of a
 * fetch before the next one, so a record arriving later waits for a slow one: ADR 0004); while a
 * dependency is down /health/ready answers 503 and /metrics shows the waiting partition, and both
 * recover when it is back.
 */
describe('consumer in a service (Nest transport, real Kafka)', () => {
  const topic = uniqueName('test.svc') as TopicName;
  const groupId = uniqueName('svc');
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  let producer: Producer;
  let app: INestApplication;
  let url: string;
  const handled: string[] = [];
  let releaseSlow: () => void = () => undefined;
  const slow = new Promise<void>((r) => (releaseSlow = r));
  let dependencyDown = true;
  const slowStarted = new Set<string>();

  function controllerFor(t: string): Type<unknown> {
    @Controller()
    class TestConsumer {
      constructor(private readonly runner: ConsumerRunner) {}

      @EventPattern(t)
      async on(@Ctx() ctx: KafkaContext): Promise<void> {
        await this.runner.run('inventory.commands.v1', recordFromContext(ctx), async (e) => {
          const id = e.payload.order_id;
          if (id === oid(1) || id === oid(2)) {
            slowStarted.add(id);
            await slow; // holds its partition until released
          }
          if (id === oid(3) && dependencyDown)
            throw new AppError('TEST.DB_DOWN', 'unavailable', 'database unreachable');
          handled.push(id);
        });
      }
    }
    return TestConsumer;
  }

  @Module({})
  class TestServiceModule {
    static register(t: string, p: KafkaPublisher): DynamicModule {
      return {
        module: TestServiceModule,
        imports: [PlatformModule.forRoot(logger)],
        controllers: [controllerFor(t)],
        providers: [
          {
            provide: ConsumerRunner,
            useFactory: (m: Metrics, h: HealthRegistry, timeouts: ConsumerTimeouts) =>
              createConsumerRunner(p, logger, groupId, m.registry, h, timeouts),
            inject: [Metrics, HealthRegistry, KAFKA_CONSUMER_TIMEOUTS],
          },
        ],
      };
    }
  }

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'svc-test', logger });
    await ensureTopics(kafka, [topic], 3);
    publisher = new KafkaPublisher(kafka);
    await publisher.connect();
    producer = kafka.producer();
    await producer.connect();
    // Two slow records on partitions 0 and 1 before the service starts: its first fetch returns both.
    await sendTo(0, 1);
    await sendTo(1, 2);
    app = await runService({
      name: 'svc-test',
      description: 'test',
      rootModule: TestServiceModule.register(topic, publisher),
      logger,
      http: { port: 0, host: '127.0.0.1', bodyLimit: '256kb' },
      // No partitionsConcurrently: the default must already work partitions in parallel.
      kafka: { brokers: env.kafkaBrokers, sasl: env.kafkaSasl, groupId, clientId: 'svc-test' },
      shutdownTimeoutMs: 5000,
      edge: { api: { name: 'svc-test', title: 'svc-test', description: 'test', version: '1', controllers: [] }, settings: testEdgeSettings() },
    });
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    releaseSlow();
    dependencyDown = false;
    await app.close();
    await publisher.disconnect();
    await producer.disconnect();
  });

  async function sendTo(partition: number, n: number): Promise<void> {
    const m = createMessage(
      'inventory.commands.v1',
      'ReleaseStock',
      { order_id: oid(n) },
      { correlation_id: 'svc', causation_id: null },
    );
    await producer.send({ topic, messages: [{ key: oid(n), value: JSON.stringify(m.envelope), partition }] });
  }

  it('partitions fetched together are worked on at once by default (KAFKA_PARTITIONS_CONCURRENTLY 12)', async () => {
    await waitFor(async () => slowStarted.size === 2, 60_000, 'both slow records worked on at the same time');
    expect(handled).toEqual([]);
    releaseSlow();
    await waitFor(
      async () => handled.includes(oid(1)) && handled.includes(oid(2)),
      30_000,
      'both handled once released',
    );
  }, 90_000);

  it('while a dependency is down: readiness 503 and a waiting partition in /metrics; both recover', async () => {
    await sendTo(2, 3);
    await waitFor(async () => (await fetch(`${url}/health/ready`)).status === 503, 30_000, 'readiness 503');
    const ops = { headers: { authorization: `Bearer ${await serviceToken()}` } };
    // the checks' errors are for operators only (ADR 0007)
    const body = (await (await fetch(`${url}/health/ready`, ops)).json()) as {
      checks: Record<string, { status: string; error?: string }>;
    };
    expect(body.checks['kafka-consumer']?.error).toMatch(/TEST\.DB_DOWN/);
    expect(await (await fetch(`${url}/metrics`, ops)).text()).toMatch(/kafka_consumer_partitions_waiting 1/);
    dependencyDown = false;
    await waitFor(async () => handled.includes(oid(3)), 30_000, 'handled once the dependency is back');
    await waitFor(async () => (await fetch(`${url}/health/ready`)).status === 200, 10_000, 'ready again');
    expect(await (await fetch(`${url}/metrics`, ops)).text()).toMatch(/kafka_consumer_partitions_waiting 0/);
  }, 90_000);
});
