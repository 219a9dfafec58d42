import { DynamicModule, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { Db, MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { ConsumerRunner, KAFKA, KafkaPublisher, retryPolicyOf } from '@mw/messaging';
import { lagTolerantRead, MONGO_CLIENT, MONGO_DB } from '@mw/persistence';
import {
  ConsumerTimeouts,
  defaultConsumerTimeouts,
  KAFKA_CONSUMER_TIMEOUTS,
  LOGGER,
  Metrics,
} from '@mw/platform';
import type { OrdersConfig } from '../config';
import { AnalyticsConsumer } from './analytics.consumer';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsMetrics } from './analytics.metrics';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsProjector, AnalyticsQueries } from './analytics.service';

type Cfg = Readonly<OrdersConfig>;

/** The consumer group of the read model: its own, so it keeps its own position in the orders topic. */
export const analyticsGroupOf = (c: Pick<OrdersConfig, 'ANALYTICS_GROUP_ID' | 'KAFKA_GROUP_ID'>): string =>
  c.ANALYTICS_GROUP_ID ?? `${c.KAFKA_GROUP_ID}-analytics`;

@Injectable()
class AnalyticsIndexes implements OnModuleInit {
  constructor(private readonly repo: AnalyticsRepository) {}
  async onModuleInit(): Promise<void> {
    await this.repo.ensureIndexes();
  }
}

/** Sales analytics (ADR 0051): the read model's consumer, its repository and the operators' API. */
@Module({})
export class AnalyticsModule {
  static register(config: Cfg): DynamicModule {
    const group = analyticsGroupOf(config);
    return {
      module: AnalyticsModule,
      controllers: [AnalyticsController],
      providers: [
        {
          provide: AnalyticsRepository,
          useFactory: (client: MongoClient, db: Db) =>
            new AnalyticsRepository(
              client,
              db,
              lagTolerantRead(config.ANALYTICS_READ_PREFERENCE, config.ANALYTICS_MAX_STALENESS_SECONDS),
            ),
          inject: [MONGO_CLIENT, MONGO_DB],
        },
        AnalyticsIndexes,
        {
          provide: AnalyticsQueries,
          useFactory: (r: AnalyticsRepository) => new AnalyticsQueries(r, config.ZONES),
          inject: [AnalyticsRepository],
        },
        {
          provide: AnalyticsMetrics,
          useFactory: (m: Metrics) => new AnalyticsMetrics(m.registry),
          inject: [Metrics],
        },
        {
          provide: AnalyticsProjector,
          useFactory: (r: AnalyticsRepository, log: Logger, m: AnalyticsMetrics) =>
            new AnalyticsProjector(r, log, m),
          inject: [AnalyticsRepository, LOGGER, AnalyticsMetrics],
        },
        {
          provide: AnalyticsConsumer,
          useFactory: (
            kafka: Kafka,
            publisher: KafkaPublisher,
            p: AnalyticsProjector,
            log: Logger,
            m: AnalyticsMetrics,
            timeouts?: ConsumerTimeouts,
          ) => {
            const t = timeouts ?? defaultConsumerTimeouts;
            // A runner of its own: dead letters and redrives name this group, not the saga's.
            const runner = new ConsumerRunner(publisher, log, group, undefined, retryPolicyOf(t));
            return new AnalyticsConsumer(
              kafka,
              runner,
              p,
              {
                topic: config.ORDERS_EVENTS_TOPIC,
                groupId: group,
                fromBeginning: config.ANALYTICS_START_FROM === 'earliest',
                partitionsConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY,
                sessionTimeoutMs: t.sessionTimeoutMs,
                heartbeatIntervalMs: t.heartbeatIntervalMs,
                maxBatch: config.ANALYTICS_MAX_BATCH,
                fetchMinBytes: config.ANALYTICS_FETCH_MIN_BYTES,
                fetchMaxWaitMs: config.ANALYTICS_FETCH_MAX_WAIT_MS,
                commitIntervalMs: config.KAFKA_COMMIT_INTERVAL_MS,
              },
              log,
              m,
            );
          },
          inject: [
            KAFKA,
            KafkaPublisher,
            AnalyticsProjector,
            LOGGER,
            AnalyticsMetrics,
            { token: KAFKA_CONSUMER_TIMEOUTS, optional: true },
          ],
        },
      ],
    };
  }
}
