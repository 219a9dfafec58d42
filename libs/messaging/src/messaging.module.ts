import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerTimeouts, HealthRegistry, KAFKA_CONSUMER_TIMEOUTS, LOGGER, Metrics } from '@mw/platform';
import { ConsumerRunner, createConsumerRunner } from './consumer/consumer-runner';
import { createKafka, ensureTopics } from './kafka/kafka';
import { KafkaPublisher } from './publisher/publisher';

export const KAFKA = Symbol('KAFKA');
const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

export interface MessagingOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Consumer group of this service (named in DLQ headers). */
  readonly groupId: string;
  /** Topics this service produces or consumes; created with their DLQs if missing. */
  readonly topics: readonly string[];
  readonly partitions: number;
}

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(MESSAGING_OPTIONS) private readonly opts: MessagingOptions,
    private readonly publisher: KafkaPublisher,
    private readonly health: HealthRegistry,
  ) {}
  async onModuleInit(): Promise<void> {
    await ensureTopics(this.kafka, this.opts.topics, this.opts.partitions);
    await this.publisher.connect();
    const admin = this.kafka.admin();
    this.health.register({
      name: 'kafka',
      check: async () => {
        await admin.connect();
        await admin.describeCluster();
      },
    });
  }
  async onApplicationShutdown(): Promise<void> {
    await this.publisher.disconnect();
  }
}

/** Kafka client, typed publisher and consumer runner for one service. */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(opts: MessagingOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: opts },
        { provide: KAFKA, useFactory: (logger: Logger) => createKafka({ brokers: opts.brokers, clientId: opts.clientId, logger }), inject: [LOGGER] },
        { provide: KafkaPublisher, useFactory: (kafka: Kafka) => new KafkaPublisher(kafka), inject: [KAFKA] },
        {
          provide: ConsumerRunner,
          useFactory: (p: KafkaPublisher, logger: Logger, metrics: Metrics, health: HealthRegistry, timeouts?: ConsumerTimeouts) =>
            createConsumerRunner(p, logger, opts.groupId, metrics.registry, health, timeouts),
          inject: [KafkaPublisher, LOGGER, Metrics, HealthRegistry, { token: KAFKA_CONSUMER_TIMEOUTS, optional: true }],
        },
        MessagingLifecycle,
      ],
      exports: [KAFKA, KafkaPublisher, ConsumerRunner],
    };
  }
}
