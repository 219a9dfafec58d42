import { Injectable } from '@nestjs/common';
import type { EnvelopeOf } from '@mw/contracts';
import { inKeyOrder } from '@mw/messaging';
import { assertUnreachable } from '@mw/platform';
import { ActivityService } from '../activity/activity.service';
import type { OrderOutcome } from '../carts/cart';
import { CartsService } from '../carts/carts.service';

type OrderEvent = EnvelopeOf<'orders.orders.v1'>;

/**
 * Order events close or reopen the cart (saga step 5), and every order event becomes a row of the
 * user's activity (ADR 0061).
 */
@Injectable()
export class OrderEventsService {
  constructor(
    private readonly carts: CartsService,
    private readonly activity: ActivityService,
  ) {}

  /**
   * The event's activity row rides in the batch that follows the cart's status LWT when the cart
   * moves (one request for the lookup row's delete and the row); otherwise it is written alone. A
   * crash after the LWT and before that batch redelivers the event: the cart no longer moves, and
   * the row is written alone then.
   */
  async onOrderEvent(e: OrderEvent): Promise<void> {
    const outcome = outcomeOf(e);
    const row = await this.activity.prepareOrderEvent(e);
    const carried = outcome
      ? await this.carts.onOrderOutcome(outcome, e.payload.cart_id, e.payload.checkout_id, row ? [row] : [])
      : false;
    if (row && !carried) await this.activity.write(row);
  }

  /**
   * A chunk of one partition: each cart's events one after the other in the partition's order (a
   * cart's status moves by them), the carts at once. Every step is idempotent (a replayed outcome
   * changes nothing, an activity row is keyed by its event), so a chunk redelivered after a crash,
   * or handled again one by one after a failure, changes nothing twice.
   */
  onOrderEvents(
    events: readonly OrderEvent[],
    within: (index: number, fn: () => Promise<void>) => Promise<void>,
  ): Promise<void> {
    const indexed = events.map((e, index) => ({ e, index }));
    return inKeyOrder(
      indexed,
      ({ e }) => e.payload.cart_id,
      ({ e, index }) => within(index, () => this.onOrderEvent(e)),
    );
  }
}

/** What an order event says to the cart; OrderCreated says nothing (the cart is already checking out). */
function outcomeOf(e: OrderEvent): OrderOutcome | null {
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
