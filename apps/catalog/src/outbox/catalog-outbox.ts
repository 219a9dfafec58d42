import {
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { Db } from 'mongodb';
import type { Logger } from 'pino';
import { KafkaPublisher, OutboxRelay } from '@mw/messaging';
import { MONGO_DB } from '@mw/persistence';
import { LOGGER, Metrics } from '@mw/platform';
import type { CatalogConfig } from '../config';
import { ensureCatalogSchema, OUTBOX_COLLECTIONS } from '../shared/catalog-db';
import { CATALOG_CONFIG } from '../shared/tokens';

/** Collections, validators and indexes at start-up; the outbox relay publishes catalog events. */
@Injectable()
export class CatalogOutbox implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly relay: OutboxRelay;

  constructor(
    @Inject(MONGO_DB) private readonly db: Db,
    publisher: KafkaPublisher,
    metrics: Metrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CATALOG_CONFIG) private readonly config: CatalogConfig,
  ) {
    this.relay = new OutboxRelay({
      db,
      collections: OUTBOX_COLLECTIONS,
      publisher,
      logger,
      name: 'catalog',
      registry: metrics.registry,
      pollIntervalMs: 100,
    });
  }

  async onModuleInit(): Promise<void> {
    await ensureCatalogSchema(this.db, this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.config.CATALOG_OUTBOX_RELAY) this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}
