import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { topics } from '@mw/contracts';
import { MessagingModule } from '@mw/messaging';
import { CassandraModule, MongoModule } from '@mw/persistence';
import { PlatformModule } from '@mw/platform';
import { CatalogConfig } from './config';

export const CATALOG_CONFIG = Symbol('CATALOG_CONFIG');

@Module({})
export class AppModule {
  static register(config: Readonly<CatalogConfig>, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(logger),
        MongoModule.forRoot({ url: config.MONGO_URL, dbName: config.MONGO_DB, appName: 'catalog', readPreference: config.CATALOG_READ_PREFERENCE }),
        CassandraModule.forRoot({
          contactPoints: config.CASSANDRA_CONTACT_POINTS,
          localDataCenter: config.CASSANDRA_LOCAL_DATACENTER,
          keyspace: config.CASSANDRA_KEYSPACE,
          replication: { class: 'SimpleStrategy', replication_factor: config.CASSANDRA_REPLICATION_FACTOR },
          schema: [],
        }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          clientId: config.KAFKA_CLIENT_ID ?? 'catalog',
          groupId: config.KAFKA_GROUP_ID,
          topics: ['catalog.products.v1', 'catalog.categories.v1'] satisfies (keyof typeof topics)[],
          partitions: config.KAFKA_TOPIC_PARTITIONS,
        }),
      ],
      providers: [{ provide: CATALOG_CONFIG, useValue: config }],
      exports: [CATALOG_CONFIG],
    };
  }
}
