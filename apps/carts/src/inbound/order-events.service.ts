import { Controller, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import type { EnvelopeOf } from '@mw/contracts';
import { ConsumerRunner, recordFromContext } from '@mw/messaging';
import { assertUnreachable } from '@mw/platform';
import { ActivityService } from '../activity/activity.service';
import type { OrderOutcome } from './cart';
import { CartsService } from './carts.service';

/**
 * Kafka entry point: order outcomes close or reopen the cart (saga step 5), and every order event
 * becomes a row of the user's activity (ADR 0061). Built per topic name (tests use private topics).
 */
export function orderOutcomeHandler(topic: string): Type<unknown> {
  @Controller()
  class OrderOutcomeHandler {
    constructor(
      private readonly runner: ConsumerRunner,
      private readonly carts: CartsService,
      private readonly activity: ActivityService,
    ) {}

    @EventPattern(topic)
    async onOrderEvent(@Ctx() ctx: KafkaContext): Promise<void> {
      await this.runner.run('orders.orders.v1', recordFromContext(ctx), async (e) => {
        const outcome = outcomeOf(e);
        if (outcome) await this.carts.onOrderOutcome(outcome, e.payload.cart_id, e.payload.checkout_id);
        await this.activity.onOrderEvent(e);
      });
    }
  }
  return OrderOutcomeHandler;
}

/** What an order event says to the cart; OrderCreated says nothing (the cart is already checking out). */
function outcomeOf(e: EnvelopeOf<'orders.orders.v1'>): OrderOutcome | null {
  switch (e.type) {
    case 'OrderCreated':
      return null;
    case 'OrderConfirmed':
    case 'OrderRejected':
    case 'OrderDeliveryStarted':
    case 'OrderCompleted':
      return { type: e.type };
    case 'OrderCancelled':
      return { type: e.type, after_confirmation: e.payload.after_confirmation ?? false };
    default:
      return assertUnreachable(e);
  }
}
