import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { CassandraModule, MongoModule } from '@mw/persistence';
import { kafkaSaslOf, PlatformModule } from '@mw/platform';
import { api } from './api';
import { CategoriesRepository } from './categories/categories.repository';
import { CategoryTraffic } from './categories/category-traffic';
import { CategoriesService } from './categories/categories.service';
import { CatalogConfig } from './config';
import { ListingRepository } from './listing/listing.repository';
import { ListingService } from './listing/listing.service';
import { CatalogOutbox } from './outbox/catalog-outbox';
import { ProductsReparenter } from './products/products-reparenter';
import { ProductsRepository } from './products/products.repository';
import { ProductsService } from './products/products.service';
import { SearchRepository } from './search/search.repository';
import { SearchService } from './search/search.service';
import { cassandraOptions } from './shared/cassandra-options';
import { CATALOG_CONFIG } from './shared/tokens';

export { CATALOG_CONFIG };

/** The catalog API: write model in MongoDB (+ outbox relay), search, and the Cassandra read side. */
@Module({})
export class AppModule {
  static register(config: Readonly<CatalogConfig>, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(logger),
        MongoModule.forRoot({
          url: config.MONGO_URL,
          dbName: config.MONGO_DB,
          appName: 'catalog',
          readPreference: 'primary',
        }),
        CassandraModule.forRoot(cassandraOptions(config)),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          sasl: kafkaSaslOf(config),
          clientId: config.KAFKA_CLIENT_ID ?? 'catalog',
          groupId: config.KAFKA_GROUP_ID,
          consumerGroups: [], // consumes nothing: no group of its own (ADR 0009)
          topics: {
            'catalog.products.v1': 'catalog.products.v1',
            'catalog.categories.v1': 'catalog.categories.v1',
          },
          partitions: config.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
        }),
      ],
      // Exactly the controllers of the API description (./api.ts), so the served document covers every route.
      controllers: [...api.controllers],
      providers: [
        { provide: CATALOG_CONFIG, useValue: config },
        CatalogOutbox,
        CategoriesRepository,
        CategoryTraffic,
        ProductsRepository,
        ProductsReparenter,
        CategoriesService,
        ProductsService,
        SearchRepository,
        SearchService,
        ListingRepository,
        ListingService,
      ],
      exports: [CATALOG_CONFIG],
    };
  }
}
