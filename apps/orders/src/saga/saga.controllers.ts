import { Controller, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { CheckoutService } from '../orders/checkout.service';
import { sagaInputOf } from './inventory-replies';
import { SagaService } from './saga.service';

/**
 * Kafka entry points of the saga, built per topic name so tests run on private topics.
 * Each is one line: the consumer runner validates (retry, dead-letter), the service decides.
 */
export function sagaControllers(topics: { checkout: string; inventoryEvents: string }): Type<unknown>[] {
  @Controller()
  class CheckoutRequestsController {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly checkout: CheckoutService,
    ) {}

    @EventPattern(topics.checkout)
    async onCheckout(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('carts.checkout.v1', recordFromContext(ctx), (e) => this.checkout.onCheckoutRequested(e.payload, { correlation_id: e.correlation_id, causation_id: e.id }));
    }
  }

  @Controller()
  class InventoryRepliesController {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly saga: SagaService,
    ) {}

    @EventPattern(topics.inventoryEvents)
    async onReply(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('inventory.events.v1', recordFromContext(ctx), async (e) => {
        const m = sagaInputOf(e);
        if (m) await this.saga.apply(m.orderId, m.input, e.id);
      });
    }
  }

  return [CheckoutRequestsController, InventoryRepliesController];
}
