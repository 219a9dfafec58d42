import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { Carts, OutgoingMessage, TraceContext } from '@mw/contracts';
import { AppError, traceparentOf } from '@mw/platform';
import { SagaMessages } from '../saga/saga-messages';
import { initialCommands, SagaTimeouts } from '../saga/saga';
import { SagaNudges } from '../saga/saga.service';
import { Order, orderFromCheckout } from './order';
import { OrdersRepository } from './orders.repository';

/**
 * Step 2 of the checkout saga: one order per checkout, inserted with OrderCreated and ReserveStock
 * in its outbox (one write). A checkout that cannot become an order is answered with OrderRejected
 * (stored once per checkout, so the cart leaves checking_out) and also dead-lettered for an operator.
 */
export class CheckoutService {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly messages: SagaMessages,
    private readonly zones: readonly string[],
    private readonly timeouts: SagaTimeouts,
    private readonly nudges: SagaNudges,
    private readonly logger: Logger,
    /** orders_created_total{zone}: the seed 002 watch of the orders shard key's ranges (one zone each). */
    private readonly created: Pick<Counter<'zone'>, 'inc'>,
  ) {}

  async onCheckoutRequested(checkout: Carts.CheckoutRequestedPayload, trace: TraceContext): Promise<void> {
    const correlationId = trace.correlation_id;
    const now = new Date();
    const decision = orderFromCheckout(checkout, this.zones, now, this.timeouts, correlationId);
    if (!decision.ok) {
      const rejected = this.messages.orderEvent(
        'OrderRejected',
        { checkout_id: checkout.checkout_id, cart_id: checkout.cart_id, user_id: checkout.user_id, code: decision.code, field: decision.field, message: decision.message },
        trace,
        now,
      );
      const stored = await this.repo.insertRejection(
        { _id: checkout.checkout_id, cart_id: checkout.cart_id, user_id: checkout.user_id, code: decision.code, field: decision.field, message: decision.message, at: now },
        rejected,
      );
      if (stored) this.nudges.outbox();
      this.logger.warn({ checkout_id: checkout.checkout_id, code: decision.code, duplicate: !stored }, 'checkout rejected');
      throw AppError.validation([{ field: `payload.${decision.field}`, message: decision.message }], 'ORDERS.INVALID_CHECKOUT');
    }
    const o = decision.order;
    const inserted = await this.repo.insertWithMessages(o, this.firstMessages(o, trace, now));
    this.afterInsert(o, inserted);
  }

  /**
   * Group commit of checkouts (ADR 0012 §4): the orders of a consumed batch in one unordered insert,
   * a redelivered checkout (here or earlier) found by the unique _id as on the single path. A
   * checkout that cannot become an order is answered and dead-lettered on the single path: when the
   * batch holds one, it fails before writing anything ({@link CheckoutBatchRefused}) and every
   * checkout of it takes that path. `within(j, fn)`: `fn` in the j-th checkout's trace.
   */
  async onCheckoutRequestedMany(
    checkouts: readonly { readonly payload: Carts.CheckoutRequestedPayload; readonly trace: TraceContext }[],
    within: <R>(j: number, fn: () => R) => R = (_, fn) => fn(),
  ): Promise<void> {
    const now = new Date();
    const items: { order: Order; messages: OutgoingMessage[]; traceparent: string | undefined }[] = [];
    for (const [j, { payload, trace }] of checkouts.entries()) {
      const d = orderFromCheckout(payload, this.zones, now, this.timeouts, trace.correlation_id);
      if (!d.ok) throw new CheckoutBatchRefused(j);
      items.push(within(j, () => ({ order: d.order, messages: this.firstMessages(d.order, trace, now), traceparent: traceparentOf() })));
    }
    const inserted = await this.repo.insertManyWithMessages(items);
    for (const [j, { order }] of items.entries()) within(j, () => this.afterInsert(order, inserted[j] === true));
  }

  /** OrderCreated and ReserveStock, stored with the order (one write). */
  private firstMessages(o: Order, trace: TraceContext, now: Date): OutgoingMessage[] {
    const created = this.messages.orderEvent(
      'OrderCreated',
      { order_id: o.id, user_id: o.user_id, cart_id: o.cart_id, checkout_id: o.checkout_id, zone: o.zone, total: o.total, currency: 'RUB' },
      trace,
      now,
    );
    return [created, ...this.messages.forCommands(o, initialCommands, trace.causation_id, now)];
  }

  private afterInsert(o: Order, inserted: boolean): void {
    this.logger.info({ order_id: o.id, checkout_id: o.checkout_id, duplicate: !inserted }, inserted ? 'order created, stock requested' : 'duplicate checkout ignored');
    if (inserted) {
      this.created.inc({ zone: o.zone });
      this.nudges.outbox();
      if (o.saga.deadline) this.nudges.deadline?.(o.saga.deadline);
    }
  }
}

/** A batch of checkouts holding one that cannot become an order: nothing was written; each takes the single path. */
export class CheckoutBatchRefused extends Error {
  constructor(readonly index: number) {
    super(`checkout ${index} of the batch cannot become an order; the batch takes the single path`);
    this.name = 'CheckoutBatchRefused';
  }
}
