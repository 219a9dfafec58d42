import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { CassandraModule, cassandraReplication } from '@mw/persistence';
import { kafkaSaslOf, PlatformModule } from '@mw/platform';
import { ActivityModule } from './activity/activity.module';
import { activitySchema } from './activity/activity.schema';
import { CartsConfig } from './config';
import { CARTS_CONFIG } from './config.token';
import { CartsModule } from './carts/carts.module';
import { cartsSchema } from './carts/carts.schema';
import { CheckoutModule } from './checkout/checkout.module';
import { InboundModule } from './inbound/inbound.module';
import { checkoutSchema } from './checkout/checkout.schema';
import { MergeModule } from './merge/merge.module';
import { mergeSchema } from './merge/merge.schema';
import { ProductsModule } from './products/products.module';
import { productsSchema } from './products/products.schema';
import { SessionsModule } from './sessions/sessions.module';
import { userSessionsSchema } from './sessions/user-sessions.schema';

@Global()
@Module({})
export class AppModule {
  static register(config: Readonly<CartsConfig>, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(logger),
        CassandraModule.forRoot({
          contactPoints: config.CASSANDRA_CONTACT_POINTS,
          localDataCenter: config.CASSANDRA_LOCAL_DATACENTER,
          keyspace: config.CASSANDRA_KEYSPACE,
          replication: cassandraReplication(config.CASSANDRA_REPLICATION_FACTOR, config.CASSANDRA_LOCAL_DATACENTER),
          schema: [
            ...cartsSchema(config.CART_TTL_SECONDS),
            ...productsSchema(),
            ...checkoutSchema(),
            ...mergeSchema(),
            ...userSessionsSchema(),
            ...activitySchema(config.USER_EVENTS_TTL_SECONDS),
          ],
        }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          sasl: kafkaSaslOf(config),
          clientId: config.KAFKA_CLIENT_ID ?? 'carts',
          groupId: config.KAFKA_GROUP_ID,
          topics: {
            'carts.checkout.v1': config.CARTS_CHECKOUT_TOPIC,
            'orders.orders.v1': config.CARTS_ORDERS_TOPIC,
            'catalog.products.v1': config.CARTS_PRODUCTS_TOPIC,
            'inventory.events.v1': config.CARTS_STOCK_TOPIC,
          },
          partitions: config.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
        }),
        ProductsModule,
        ActivityModule,
        SessionsModule,
        CartsModule,
        CheckoutModule,
        MergeModule,
        InboundModule,
      ],
      providers: [{ provide: CARTS_CONFIG, useValue: config }],
      exports: [CARTS_CONFIG],
    };
  }
}
