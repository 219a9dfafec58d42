import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerTimeouts, HealthRegistry, KAFKA_CONSUMER_TIMEOUTS, type KafkaSasl, LOGGER, Metrics } from '@mw/platform';
import { ConsumerLagMetrics } from './consumer/consumer-lag';
import { ConsumerRunner, createConsumerRunner } from './consumer/consumer-runner';
import { TopicName } from '@mw/contracts';
import { createKafka } from './kafka/kafka';
import { ensureTopicSpecs, validatePolicy } from './topics/topic-admin';
import { topicSpecs } from './topics/topic-definitions';
import { KafkaPublisher } from './publisher/publisher';

export const KAFKA = Symbol('KAFKA');
const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

export interface MessagingOptions {
  readonly brokers: readonly string[];
  /** The service's own principal (`kafkaSaslOf(config)`); undefined only for a broker without SASL. */
  readonly sasl: KafkaSasl | undefined;
  readonly clientId: string;
  /** Consumer group of this service (named in DLQ headers). */
  readonly groupId: string;
  /**
   * The consumer groups of this process whose lag /metrics reports (default: `groupId`); orders adds
   * its analytics group, a service that consumes nothing (catalog) lists none.
   */
  readonly consumerGroups?: readonly string[];
  /**
   * Topics this service produces or consumes: each registry topic → the name used for it (the
   * registry name in production, a private name in tests). Created with their DLQs from the topic
   * definitions if missing, verified against them if present; a mismatch fails start.
   */
  readonly topics: Partial<Record<TopicName, string>>;
  /** Partitions of private topics only (tests, benchmarks); registry topics have their definition's. */
  readonly partitions?: number;
  /** KAFKA_REPLICATION_FACTOR / KAFKA_MIN_INSYNC_REPLICAS. */
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(MESSAGING_OPTIONS) private readonly opts: MessagingOptions,
    private readonly publisher: KafkaPublisher,
    private readonly health: HealthRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}
  async onModuleInit(): Promise<void> {
    const policy = { replicationFactor: this.opts.replicationFactor, minInsyncReplicas: this.opts.minInsyncReplicas };
    await ensureTopicSpecs(this.kafka, topicSpecs(this.opts.topics, this.opts.partitions), policy, this.logger);
    await this.publisher.connect();
    const admin = this.kafka.admin();
    const topics = Object.values(this.opts.topics).filter((t): t is string => t !== undefined);
    new ConsumerLagMetrics(admin, this.metrics.registry, this.opts.consumerGroups ?? [this.opts.groupId], topics);
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
    validatePolicy({ replicationFactor: opts.replicationFactor, minInsyncReplicas: opts.minInsyncReplicas });
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: opts },
        { provide: KAFKA, useFactory: (logger: Logger) => createKafka({ brokers: opts.brokers, sasl: opts.sasl, clientId: opts.clientId, logger }), inject: [LOGGER] },
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
