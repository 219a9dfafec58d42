import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { CassandraModule } from '@mw/persistence';
import { PlatformModule } from '@mw/platform';
import { CartsConfig } from './config';
import { CARTS_CONFIG } from './config.token';
import { CartsModule } from './carts/carts.module';
import { cartsSchema } from './carts/carts.schema';

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
          replication: { class: 'SimpleStrategy', replication_factor: config.CASSANDRA_REPLICATION_FACTOR },
          schema: cartsSchema(config.CART_TTL_SECONDS),
        }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          clientId: config.KAFKA_CLIENT_ID ?? 'carts',
          groupId: config.KAFKA_GROUP_ID,
          topics: ['carts.checkout.v1', 'orders.orders.v1'],
          partitions: config.KAFKA_TOPIC_PARTITIONS,
        }),
        CartsModule,
      ],
      providers: [{ provide: CARTS_CONFIG, useValue: config }],
      exports: [CARTS_CONFIG],
    };
  }
}
