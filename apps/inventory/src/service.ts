import { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { consumerTimeoutsOf, runService } from '@mw/platform';
import { AppModule } from './app.module';
import { InventoryConfig } from './config';

/** Starts one inventory instance (HTTP + Kafka consumer + background loops). Used by main.ts and the tests. */
export function startInventory(config: Readonly<InventoryConfig>, logger: Logger, port = config.HTTP_PORT): Promise<INestApplication> {
  return runService({
    name: 'inventory',
    description: 'Stock per (product, zone), expiring reservations, the movements ledger (MongoDB); saga participant over Kafka',
    rootModule: AppModule.register(config, logger),
    logger,
    http: { port, bodyLimit: config.HTTP_BODY_LIMIT },
    kafka: { brokers: config.KAFKA_BROKERS, groupId: config.KAFKA_GROUP_ID, clientId: config.KAFKA_CLIENT_ID ?? 'inventory', partitionsConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY },
    consumerTimeouts: consumerTimeoutsOf(config),
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}
