import { Controller, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { CartsService } from './carts.service';

/** Kafka entry point: order outcomes close or reopen the cart. Built per topic name (tests use private topics). */
export function orderOutcomeHandler(topic: string): Type<unknown> {
  @Controller()
  class OrderOutcomeHandler {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly carts: CartsService,
    ) {}

    @EventPattern(topic)
    async onOrderEvent(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('orders.orders.v1', recordFromContext(ctx), async (e) => {
        switch (e.type) {
          case 'OrderConfirmed':
          case 'OrderCancelled':
          case 'OrderRejected':
            return this.carts.onOrderOutcome(e.type, e.payload.cart_id, e.payload.checkout_id);
          case 'OrderCreated':
            return; // the cart is already checking out
        }
      });
    }
  }
  return OrderOutcomeHandler;
}
