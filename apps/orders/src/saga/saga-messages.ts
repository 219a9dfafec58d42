import { createMessage, OutgoingMessage, PayloadOf, TraceContext } from '@mw/contracts';
import { assertUnreachable } from '@mw/platform';
import { Order, stockLinesOf } from '../orders/order';
import { SagaCommand } from './saga';

export interface SagaTopics {
  readonly inventoryCommands: string;
  readonly orderEvents: string;
}

type OrderEventType =
  | 'OrderCreated'
  | 'OrderConfirmed'
  | 'OrderCancelled'
  | 'OrderDeliveryStarted'
  | 'OrderCompleted'
  | 'OrderRejected';

/**
 * Turns the saga's abstract commands into validated contract messages on the configured topics:
 * inventory commands keyed by order id, order outcomes keyed by user id, all in the saga's
 * correlation (the checkout's) and caused by the message or operation being handled.
 */
export class SagaMessages {
  constructor(
    private readonly topics: SagaTopics,
    private readonly holdSeconds: number,
  ) {}

  forCommands(
    order: Order,
    commands: readonly SagaCommand[],
    causation: string | null,
    now: Date,
  ): OutgoingMessage[] {
    const trace = { correlation_id: order.correlation_id, causation_id: causation };
    return commands.map((c) => this.forCommand(order, c, trace, now));
  }

  orderEvent<M extends OrderEventType>(
    type: M,
    payload: PayloadOf<'orders.orders.v1', M>,
    trace: TraceContext,
    now = new Date(),
  ): OutgoingMessage {
    return {
      ...createMessage('orders.orders.v1', type, payload, trace, now),
      topic: this.topics.orderEvents,
    } as OutgoingMessage;
  }

  private inventory(
    type: 'ReserveStock' | 'ReleaseStock' | 'CommitStock' | 'ReturnStock',
    payload: PayloadOf<'inventory.commands.v1', typeof type>,
    trace: TraceContext,
    now: Date,
  ): OutgoingMessage {
    return {
      ...createMessage('inventory.commands.v1', type, payload as never, trace, now),
      topic: this.topics.inventoryCommands,
    } as OutgoingMessage;
  }

  private forCommand(order: Order, c: SagaCommand, trace: TraceContext, now: Date): OutgoingMessage {
    const ref = {
      order_id: order.id,
      user_id: order.user_id,
      cart_id: order.cart_id,
      checkout_id: order.checkout_id,
    };
    switch (c.type) {
      case 'ReserveStock':
        return this.inventory(
          'ReserveStock',
          {
            order_id: order.id,
            zone: order.zone,
            lines: stockLinesOf(order.items),
            hold_seconds: this.holdSeconds,
          },
          trace,
          now,
        );
      case 'ReleaseStock':
        return this.inventory('ReleaseStock', { order_id: order.id }, trace, now);
      case 'CommitStock':
        return this.inventory(
          'CommitStock',
          { order_id: order.id, ...(c.reply ? { reply: c.reply } : {}) },
          trace,
          now,
        );
      case 'ReturnStock':
        return this.inventory(
          'ReturnStock',
          { order_id: order.id, reason: 'cancelled_by_customer' },
          trace,
          now,
        );
      case 'OrderConfirmed':
        return this.orderEvent('OrderConfirmed', ref, trace, now);
      case 'OrderDeliveryStarted':
        return this.orderEvent('OrderDeliveryStarted', ref, trace, now);
      case 'OrderCompleted':
        return this.orderEvent('OrderCompleted', ref, trace, now);
      case 'OrderCancelled':
        return this.orderEvent(
          'OrderCancelled',
          {
            ...ref,
            reason: c.reason,
            after_confirmation: c.after_confirmation,
            ...(c.by ? { cancelled_by: { sub: c.by.sub, role: c.by.role } } : {}),
          },
          trace,
          now,
        );
      default:
        return assertUnreachable(c);
    }
  }
}
