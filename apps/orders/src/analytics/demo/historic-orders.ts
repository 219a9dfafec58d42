/**
 * Historic orders as the orders service would have written them: the order document with a
 * realistic saga (state, reason, payment, stock, every transition with its cause and time) and the
 * order events of its life in the document's outbox, so the running service's relay publishes
 * them and the analytics consumer counts them through the real path. Used by the demo data
 * (apps/orders/scripts/demo-orders.ts) and by the analytics tests. Plain TypeScript: ids, envelope
 * ids and times derive from the spec, so the same spec always gives the same documents.
 */
import { createHash } from 'node:crypto';
import { createMessage, type OutgoingMessage, type PayloadOf } from '@mw/contracts';
import { toOutboxEntries, type WithOutbox } from '@mw/messaging';
import {
  type CancelReason,
  type OrderStatus,
  type SagaInput,
  type SagaState,
  statusOf,
  type TransitionRecord,
} from '../../saga/saga';

export type CheckoutCancelReason = CancelReason;

/** Where the order's life ended (so far). */
export type HistoricOutcome =
  | { readonly kind: 'pending'; readonly deadline: Date }
  | { readonly kind: 'confirmed' }
  | { readonly kind: 'delivering' }
  | { readonly kind: 'completed' }
  /** Cancelled during checkout (CANCELLED_BY_USER: the customer, while it waited for stock). */
  | { readonly kind: 'cancelled'; readonly reason: CheckoutCancelReason }
  /** Confirmed, then cancelled by the customer before delivery: refunded, units returned. */
  | { readonly kind: 'cancelled_after_confirmation' };

export interface HistoricItem {
  readonly product_id: string;
  readonly name: string;
  readonly category_id?: string;
  /** Unit price, kopecks. */
  readonly price: number;
  readonly qty: number;
}

export interface HistoricOrderSpec {
  /** Any stable text: the order, checkout, cart and envelope ids derive from it. */
  readonly seed: string;
  readonly userId: string;
  readonly zone: string;
  readonly at: Date;
  readonly items: readonly HistoricItem[];
  readonly outcome: HistoricOutcome;
}

type State = SagaState;
type Transition = TransitionRecord;

/** An order document of the `orders` collection (the shape of orders.repository.ts OrderDoc). */
export interface HistoricOrderDoc extends WithOutbox {
  _id: string;
  checkout_id: string;
  cart_id: string;
  user_id: string;
  zone: string;
  items: HistoricItem[];
  total: number;
  currency: 'RUB';
  status: OrderStatus;
  saga: {
    state: State;
    reason: CheckoutCancelReason | null;
    deadline: Date | null;
    payment: {
      step: null;
      next_at: null;
      attempts: number;
      authorization_id: string | null;
      authorized: boolean;
      captured: boolean;
      reversed: 'voided' | 'refunded' | null;
      decline_code: string | null;
    };
    stock: { reserved_until: Date | null; failure: string | null; return: 'returned' | null };
    cancel_requested: null;
    history: Transition[];
  };
  correlation_id: string;
  order_date: Date;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export interface HistoricOrder {
  readonly doc: HistoricOrderDoc;
  /** The order events of its life, oldest first (also in `doc._outbox`). */
  readonly messages: readonly OutgoingMessage[];
}

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A version-4-shaped uuid derived from a text. */
export function uuidFrom(text: string): string {
  const h = hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The 24-hex order id of a historic order. */
export const historicOrderId = (seed: string): string => hex(`historic-order:${seed}`).slice(0, 24);

const SECOND = 1000;
const HOUR = 3600 * SECOND;

/**
 * The document and events of one historic order. `ordersTopic` is the name the events go to
 * (orders.orders.v1, or a private topic in tests). Historic orders never touch inventory: they
 * predate the stock count, so their outbox holds order events only, no stock commands.
 */
export function historicOrder(spec: HistoricOrderSpec, ordersTopic: string): HistoricOrder {
  const id = historicOrderId(spec.seed);
  const checkoutId = uuidFrom(`checkout:${spec.seed}`);
  const cartId = uuidFrom(`cart:${spec.seed}`);
  const correlationId = `checkout-${checkoutId}`;
  const t0 = spec.at.getTime();
  const at = (ms: number): Date => new Date(t0 + ms);
  const history: Transition[] = [];
  let state = 'AWAITING_STOCK' as State;
  const go = (to: State, event: SagaInput['type'], cause: string, ms: number): void => {
    history.push({ from: state, to, event, cause, at: at(ms) });
    state = to;
  };
  const saga: HistoricOrderDoc['saga'] = {
    state,
    reason: null,
    deadline: null,
    payment: {
      step: null,
      next_at: null,
      attempts: 0,
      authorization_id: null,
      authorized: false,
      captured: false,
      reversed: null,
      decline_code: null,
    },
    stock: { reserved_until: null, failure: null, return: null },
    cancel_requested: null,
    history,
  };
  const ref = { order_id: id, user_id: spec.userId, cart_id: cartId, checkout_id: checkoutId };
  const messages: OutgoingMessage[] = [];
  const emit = <
    M extends
      'OrderCreated' | 'OrderConfirmed' | 'OrderCancelled' | 'OrderDeliveryStarted' | 'OrderCompleted',
  >(
    type: M,
    payload: PayloadOf<'orders.orders.v1', M>,
    when: Date,
  ): void => {
    const m = createMessage(
      'orders.orders.v1',
      type,
      payload,
      { correlation_id: correlationId, causation_id: null },
      when,
    );
    messages.push({
      ...m,
      topic: ordersTopic,
      envelope: { ...m.envelope, id: uuidFrom(`${id}:${type}`) },
    } as OutgoingMessage);
  };
  const total = spec.items.reduce((n, i) => n + i.price * i.qty, 0);
  emit('OrderCreated', { ...ref, zone: spec.zone, total, currency: 'RUB' }, spec.at);

  const o = spec.outcome;
  const cancel = (reason: CheckoutCancelReason, afterConfirmation: boolean): void => {
    saga.reason = reason;
    emit(
      'OrderCancelled',
      { ...ref, reason, after_confirmation: afterConfirmation },
      history[history.length - 1]!.at,
    );
  };
  const reserve = (): void => {
    go('AWAITING_PAYMENT', 'StockReserved', uuidFrom(`${id}:reserved`), 400);
    saga.stock.reserved_until = at(15 * 60 * SECOND);
  };
  const pay = (): void => {
    go('AWAITING_PAYMENT', 'PaymentAuthorized', `${id}:authorize`, 600);
    saga.payment = {
      ...saga.payment,
      attempts: 1,
      authorized: true,
      authorization_id: `auth_${id.slice(0, 12)}`,
    };
  };
  /** The captured payment confirms the order (its sale goes to inventory with it, ADR 0015 §3). */
  const confirm = (): void => {
    go('CONFIRMED', 'PaymentCaptured', `${id}:capture`, 800);
    saga.payment.captured = true;
    emit('OrderConfirmed', ref, at(800));
  };

  if (
    o.kind === 'cancelled' &&
    (o.reason === 'STOCK_REJECTED' ||
      o.reason === 'STOCK_DEADLINE_EXCEEDED' ||
      o.reason === 'CANCELLED_BY_USER')
  ) {
    if (o.reason === 'STOCK_REJECTED') {
      go('CANCELLED', 'StockRejected', uuidFrom(`${id}:rejected`), 400);
      saga.stock.failure = 'INSUFFICIENT_STOCK';
    } else if (o.reason === 'STOCK_DEADLINE_EXCEEDED') {
      go(
        'CANCELLED',
        'DeadlinePassed',
        `deadline:AWAITING_STOCK:${at(30 * SECOND).toISOString()}`,
        30 * SECOND,
      );
    } else {
      go('CANCELLED', 'CancelRequested', `cancel:${id}`, 200);
    }
    cancel(o.reason, false);
  } else if (o.kind === 'pending') {
    reserve();
    saga.payment = { ...saga.payment, attempts: 1 };
    saga.deadline = o.deadline;
  } else if (
    o.kind === 'cancelled' &&
    (o.reason === 'PAYMENT_DECLINED' || o.reason === 'PAYMENT_DEADLINE_EXCEEDED')
  ) {
    reserve();
    if (o.reason === 'PAYMENT_DECLINED') {
      go('CANCELLED', 'PaymentDeclined', `${id}:authorize`, 600);
      saga.payment = { ...saga.payment, attempts: 1, decline_code: 'insufficient_funds' };
    } else {
      go(
        'CANCELLING',
        'DeadlinePassed',
        `deadline:AWAITING_PAYMENT:${at(60 * SECOND).toISOString()}`,
        60 * SECOND,
      );
      go('CANCELLED', 'PaymentReversed', `${id}:void`, 61 * SECOND);
      saga.payment = { ...saga.payment, attempts: 1, reversed: 'voided' };
    }
    cancel(o.reason, false);
  } else if (o.kind === 'cancelled') {
    // COMMIT_FAILED: confirmed, but the sale found the reservation expired: refunded
    reserve();
    pay();
    confirm();
    go('CANCELLING', 'StockCommitFailed', uuidFrom(`${id}:commit-failed`), 1000);
    saga.stock.failure = 'RESERVATION_EXPIRED';
    go('CANCELLED', 'PaymentReversed', `${id}:refund`, 2000);
    saga.payment.reversed = 'refunded';
    cancel(o.reason, true);
  } else {
    reserve();
    pay();
    confirm();
    if (o.kind === 'delivering' || o.kind === 'completed') {
      go('DELIVERING', 'DeliveryStarted', `deliver:${id}`, 20 * HOUR);
      emit('OrderDeliveryStarted', ref, at(20 * HOUR));
    }
    if (o.kind === 'completed') {
      go('COMPLETED', 'DeliveryCompleted', `complete:${id}`, 68 * HOUR);
      emit('OrderCompleted', ref, at(68 * HOUR));
    }
    if (o.kind === 'cancelled_after_confirmation') {
      go('CANCELLING', 'CancelRequested', `cancel:${id}`, 5 * HOUR);
      go('CANCELLING', 'PaymentReversed', `${id}:refund`, 5 * HOUR + 60 * SECOND);
      saga.payment.reversed = 'refunded';
      go('CANCELLED', 'StockReturned', uuidFrom(`${id}:returned`), 5 * HOUR + 120 * SECOND);
      saga.stock.return = 'returned';
      cancel('CANCELLED_BY_USER', true);
    }
  }
  saga.state = state;
  const updatedAt = history.length > 0 ? history[history.length - 1]!.at : spec.at;
  const doc: HistoricOrderDoc = {
    _id: id,
    checkout_id: checkoutId,
    cart_id: cartId,
    user_id: spec.userId,
    zone: spec.zone,
    items: spec.items.map((i) => ({ ...i })),
    total,
    currency: 'RUB',
    status: statusOf(state),
    saga,
    correlation_id: correlationId,
    order_date: spec.at,
    created_at: spec.at,
    updated_at: updatedAt,
    version: 1 + history.length,
    _outbox: toOutboxEntries(messages, spec.at),
  };
  return { doc, messages };
}
