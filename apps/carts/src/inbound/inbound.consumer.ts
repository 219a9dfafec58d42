import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import {
  BatchConsumer,
  ConsumerRunner,
  InboundRecord,
  KAFKA,
  recordsOfTypes,
  serviceBatchConsumerOptions,
} from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import { CartsConfig } from '../config';
import { CARTS_CONFIG } from '../config.token';
import { ProductsService } from '../products/products.service';
import { OrderEventsService } from './order-events.service';

/** Of inventory's events, carts follows the levels only; the saga's replies are passed over unparsed. */
const FOLLOWED_INVENTORY_EVENTS: ReadonlySet<string> = new Set(['StockLevelChanged']);

/**
 * Everything carts consumes — order events (cart outcomes, activity), catalog products (prices)
 * and inventory's stock levels — a partition batch at a time in the service's group (group commit,
 * ADR 0012 §4, ADR 0060 "Consumers"): a chunk of one partition is validated by the consumer runner
 * (dead letters) and handed over as one call, its offsets committed after every write of it was
 * acknowledged. When a chunk fails, each record takes the per-message path (retries, waits).
 * Records of inventory types carts does not follow are filtered by their type header, never parsed.
 */
@Injectable()
export class InboundConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: BatchConsumer;
  private readonly topics: { readonly orders: string; readonly products: string; readonly stock: string };

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly products: ProductsService,
    private readonly orders: OrderEventsService,
    health: HealthRegistry,
    @Inject(CARTS_CONFIG) c: Readonly<CartsConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.topics = {
      orders: c.CARTS_ORDERS_TOPIC,
      products: c.CARTS_PRODUCTS_TOPIC,
      stock: c.CARTS_STOCK_TOPIC,
    };
    this.consumer = new BatchConsumer(
      kafka,
      serviceBatchConsumerOptions(
        c,
        'carts-consumer',
        [c.CARTS_ORDERS_TOPIC, c.CARTS_PRODUCTS_TOPIC, c.CARTS_STOCK_TOPIC],
        c.CARTS_CONSUMER_BATCH_MAX,
      ),
      (records) => this.handleBatch(records),
      health,
      logger,
    );
  }

  /** One chunk of one partition (one topic). */
  async handleBatch(records: readonly InboundRecord[]): Promise<void> {
    const topic = records[0]?.topic;
    if (topic === this.topics.stock) {
      await this.runner.runBatch(
        'inventory.events.v1',
        recordsOfTypes(records, FOLLOWED_INVENTORY_EVENTS),
        (events, ctx) => this.products.onInventoryEvents(events, (index, fn) => ctx.within(index, fn)),
        (e) => this.products.onInventoryEvent(e),
      );
    } else if (topic === this.topics.products) {
      await this.runner.runBatch(
        'catalog.products.v1',
        records,
        (events, ctx) => this.products.onCatalogEvents(events, (index, fn) => ctx.within(index, fn)),
        (e) => this.products.onCatalogEvent(e),
      );
    } else if (topic === this.topics.orders) {
      await this.runner.runBatch(
        'orders.orders.v1',
        records,
        (events, ctx) => this.orders.onOrderEvents(events, (index, fn) => ctx.within(index, fn)),
        (e) => this.orders.onOrderEvent(e),
      );
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await this.consumer.stop();
  }
}
