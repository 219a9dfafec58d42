import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { MongoModule } from '@mw/persistence';
import { kafkaSaslOf, PlatformModule } from '@mw/platform';
import { AnalyticsModule, analyticsGroupOf } from './analytics/analytics.module';
import { OrdersConfig } from './config';
import { ORDERS_CONFIG } from './config.token';
import { OrdersModule } from './orders/orders.module';

@Global()
@Module({})
export class AppModule {
  static register(config: Readonly<OrdersConfig>, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(logger),
        // Saga decisions read the primary (the client default); only order history may read secondaries.
        MongoModule.forRoot({ url: config.MONGO_URL, dbName: config.MONGO_DB, appName: 'orders', readPreference: 'primary' }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          sasl: kafkaSaslOf(config),
          clientId: config.KAFKA_CLIENT_ID ?? 'orders',
          groupId: config.KAFKA_GROUP_ID,
          consumerGroups: [config.KAFKA_GROUP_ID, analyticsGroupOf(config)],
          topics: {
            'carts.checkout.v1': config.ORDERS_CHECKOUT_TOPIC,
            'orders.orders.v1': config.ORDERS_EVENTS_TOPIC,
            'inventory.commands.v1': config.INVENTORY_COMMANDS_TOPIC,
            'inventory.events.v1': config.INVENTORY_EVENTS_TOPIC,
          },
          partitions: config.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
        }),
        OrdersModule.register(config),
        AnalyticsModule.register(config),
      ],
      providers: [{ provide: ORDERS_CONFIG, useValue: config }],
      exports: [ORDERS_CONFIG],
    };
  }
}
