import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { CassandraModule } from '@mw/persistence';
import { kafkaSaslOf, Metrics, PlatformModule } from '@mw/platform';
import type { CatalogConfig } from '../config';
import { CATALOG_CONFIG } from '../shared/tokens';
import { cassandraOptions } from '../shared/cassandra-options';
import { ProjectionMetrics } from './projection.metrics';
import { ProjectorConsumer } from './projector.consumer';
import { ProjectorService } from './projector.service';
import { ReadModelRepository } from './read-model.repository';

/** The projector process: Kafka → Cassandra read model; /health and /metrics over HTTP. */
@Module({})
export class ProjectorModule {
  static register(config: Readonly<CatalogConfig>, logger: Logger): DynamicModule {
    return {
      module: ProjectorModule,
      imports: [
        PlatformModule.forRoot(logger),
        CassandraModule.forRoot(cassandraOptions(config)),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          sasl: kafkaSaslOf(config),
          clientId: `${config.KAFKA_CLIENT_ID ?? 'catalog'}-projector`,
          groupId: config.PROJECTOR_GROUP_ID,
          topics: { 'catalog.products.v1': config.PROJECTOR_TOPIC },
          partitions: config.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
        }),
      ],
      providers: [
        { provide: CATALOG_CONFIG, useValue: config },
        ReadModelRepository,
        {
          provide: ProjectionMetrics,
          useFactory: (m: Metrics) => new ProjectionMetrics(m.registry),
          inject: [Metrics],
        },
        {
          provide: ProjectorService,
          useFactory: (repo: ReadModelRepository, metrics: ProjectionMetrics) =>
            new ProjectorService(repo, config.CATALOG_LISTING_PERIOD_DAYS, metrics),
          inject: [ReadModelRepository, ProjectionMetrics],
        },
        ProjectorConsumer,
      ],
    };
  }
}
