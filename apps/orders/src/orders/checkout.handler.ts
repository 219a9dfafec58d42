import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { OrdersService } from './orders.service';

/** Kafka entry point: CheckoutRequested from carts starts an order. */
@Controller()
export class CheckoutHandler {
  constructor(
    private readonly runner: ConsumerRunner,
    private readonly orders: OrdersService,
  ) {}

  @EventPattern('carts.checkout.v1')
  async onCheckout(@Ctx() ctx: KafkaContext): Promise<void> {
    await this.runner.run('carts.checkout.v1', recordFromContext(ctx), (e) => this.orders.onCheckoutRequested(e.payload));
  }
}
