import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessagingModule } from '@mw/messaging';
import { MongoModule } from '@mw/persistence';
import { kafkaSaslOf, PlatformModule } from '@mw/platform';
import { InventoryConfig } from './config';
import { inventoryProviders } from './inventory.providers';
import { LedgerController } from './ledger/ledger.controller';
import { CommandsConsumer } from './reservations/commands.consumer';
import { ReservationsController } from './reservations/reservations.controller';
import { StockController } from './stock/stock.controller';

@Module({})
export class AppModule {
  /** `commands: false` — HTTP only, no consumer of inventory commands (tests of the API alone). */
  static register(config: Readonly<InventoryConfig>, logger: Logger, opts: { readonly commands?: boolean } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(logger),
        // Stock decisions must read the primary (seed 001 §5): the client default is primary.
        MongoModule.forRoot({ url: config.MONGO_URL, dbName: config.MONGO_DB, appName: 'inventory', readPreference: 'primary' }),
        MessagingModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          sasl: kafkaSaslOf(config),
          clientId: config.KAFKA_CLIENT_ID ?? 'inventory',
          groupId: config.KAFKA_GROUP_ID,
          topics: { 'inventory.commands.v1': config.INVENTORY_COMMANDS_TOPIC, 'inventory.events.v1': config.INVENTORY_EVENTS_TOPIC },
          partitions: config.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
        }),
      ],
      controllers: [StockController, ReservationsController, LedgerController],
      providers: [...inventoryProviders(config), ...(opts.commands === false ? [] : [CommandsConsumer])],
    };
  }
}
