import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { MongoModule } from '@mw/persistence';
import { PlatformModule } from '@mw/platform';
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
        MongoModule.forRoot({ url: config.MONGO_URL, dbName: config.MONGO_DB, appName: 'orders' }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          clientId: config.KAFKA_CLIENT_ID ?? 'orders',
          groupId: config.KAFKA_GROUP_ID,
          topics: ['carts.checkout.v1', 'orders.orders.v1', 'inventory.commands.v1', 'inventory.events.v1'],
          partitions: config.KAFKA_TOPIC_PARTITIONS,
        }),
        OrdersModule,
      ],
      providers: [{ provide: ORDERS_CONFIG, useValue: config }],
      exports: [ORDERS_CONFIG],
    };
  }
}
