import { Controller, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { ProductsService } from './products.service';

/**
 * Kafka entry points feeding the price and stock tables. Built per topic name so tests run on
 * private topics without touching the shared ones.
 */
export function productsHandlers(topics: { products: string; stock: string }): Type<unknown>[] {
  @Controller()
  class CatalogProductsHandler {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly products: ProductsService,
    ) {}

    @EventPattern(topics.products)
    async onProductEvent(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('catalog.products.v1', recordFromContext(ctx), (e) => this.products.onCatalogEvent(e));
    }
  }

  @Controller()
  class StockLevelsHandler {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly products: ProductsService,
    ) {}

    @EventPattern(topics.stock)
    async onInventoryEvent(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('inventory.events.v1', recordFromContext(ctx), (e) => this.products.onInventoryEvent(e));
    }
  }
  return [CatalogProductsHandler, StockLevelsHandler];
}
