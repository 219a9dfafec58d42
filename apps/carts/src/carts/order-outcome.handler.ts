import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { CartsService } from './carts.service';

/** Kafka entry point: order outcomes close or reopen the cart. */
@Controller()
export class OrderOutcomeHandler {
  constructor(
    private readonly runner: ConsumerRunner,
    private readonly carts: CartsService,
  ) {}

  @EventPattern('orders.orders.v1')
  async onOrderEvent(@Ctx() ctx: KafkaContext): Promise<void> {
    await this.runner.run('orders.orders.v1', recordFromContext(ctx), async (e) => {
      switch (e.type) {
        case 'OrderConfirmed':
        case 'OrderCancelled':
          return this.carts.onOrderOutcome(e.type, e.payload.cart_id);
        case 'OrderCreated':
        case 'OrderRejected':
          return; // the cart is already checking out
      }
    });
  }
}
