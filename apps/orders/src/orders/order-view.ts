import { z } from 'zod';
import { ObjectIdHex, UserId, Uuid, ZoneCode } from '@mw/contracts';
import { formatMoney } from '@mw/platform';
import type { ActorRole, CancelReason, PaymentStep, SagaInput, SagaState } from '../saga/saga';
import { Order, OrderStatus } from './order';

/*
 * The JSON orders answers with, as zod schemas: the OpenAPI document is built from them, and the
 * view functions below are typed by them, so the document and the answers cannot drift apart.
 * Each enum lists exactly the values of its domain type (`satisfies` one way, the view's return
 * type the other).
 */

const Money = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .meta({ description: 'Decimal roubles, two places', example: '7579.80' });
const Timestamp = z.iso
  .datetime()
  .meta({ description: 'ISO-8601, UTC', example: '2026-11-21T10:00:00.000Z' });

export const OrderStatusEnum = z.enum([
  'pending',
  'confirmed',
  'delivering',
  'completed',
  'cancelling',
  'cancelled',
] as const satisfies readonly OrderStatus[]);
export const SagaStateEnum = z.enum([
  'AWAITING_STOCK',
  'AWAITING_PAYMENT',
  'COMMITTING',
  'CONFIRMED',
  'DELIVERING',
  'COMPLETED',
  'CANCELLING',
  'CANCELLED',
] as const satisfies readonly SagaState[]);
const CancelReasonEnum = z.enum([
  'STOCK_REJECTED',
  'PAYMENT_DECLINED',
  'STOCK_DEADLINE_EXCEEDED',
  'PAYMENT_DEADLINE_EXCEEDED',
  'COMMIT_FAILED',
  'CANCELLED_BY_USER',
  'CANCELLED_BY_SUPPORT',
] as const satisfies readonly CancelReason[]);
const ActorRoleEnum = z.enum([
  'customer',
  'support',
  'operator',
  'system',
] as const satisfies readonly ActorRole[]);
const PaymentStepEnum = z.enum([
  'SALE',
  'AUTHORIZE',
  'CAPTURE',
  'VOID',
  'REFUND',
] as const satisfies readonly PaymentStep[]);
const SagaEventEnum = z.enum([
  'StockReserved',
  'StockRejected',
  'StockCommitted',
  'StockCommitFailed',
  'StockReleased',
  'PaymentAuthorized',
  'PaymentDeclined',
  'PaymentCaptured',
  'PaymentCaptureFailed',
  'PaymentReversed',
  'PaymentReversalContradicted',
  'PaymentMismatchFound',
  'StockReturned',
  'StockReturnFailed',
  'DeadlinePassed',
  'CancelRequested',
  'DeliveryStarted',
  'DeliveryCompleted',
] as const satisfies readonly SagaInput['type'][]);

const OrderId = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .meta({ description: 'Order id (derived from the checkout id)', example: '56e540608eca05a5f7400db0' });

export const OrderView = z
  .object({
    id: OrderId,
    checkout_id: Uuid,
    cart_id: Uuid,
    user_id: UserId.meta({ description: 'The customer (token subject at checkout)' }),
    zone: ZoneCode,
    status: OrderStatusEnum,
    state: SagaStateEnum.meta({ description: 'State of the checkout saga' }),
    reason: CancelReasonEnum.nullable().meta({ description: 'Why the order was cancelled; null otherwise' }),
    deadline: Timestamp.nullable().meta({
      description: 'Deadline of the current wait; null in a terminal state',
    }),
    lines: z.array(
      z.object({
        product_id: ObjectIdHex,
        name: z.string(),
        category_id: ObjectIdHex.nullable(),
        qty: z.number().int().positive(),
        unit_price: Money,
        line_total: Money,
      }),
    ),
    totals: z.object({ items: z.number().int().nonnegative(), total: Money, currency: z.literal('RUB') }),
    payment: z.object({
      step: PaymentStepEnum.nullable().meta({ description: 'Payment work still to do; null when none' }),
      authorized: z.boolean(),
      captured: z.boolean(),
      reversed: z.enum(['voided', 'refunded']).nullable(),
      reversal_round: z.number().int().nonnegative().meta({
        description:
          'Reversal round: above 0 when the PSP contradicted itself or the reconciliation found money still held, and the reversal was asked again with new idempotency keys',
      }),
      decline_code: z.string().nullable(),
    }),
    stock_failure: z
      .string()
      .nullable()
      .meta({ description: "Inventory's refusal code (stock rejected, commit failed or return failed)" }),
    stock_return: z.enum(['pending', 'returned', 'failed']).nullable().meta({
      description:
        'Sold units coming back after a cancellation of a committed order; null when nothing was sold',
    }),
    cancel_requested_at: Timestamp.nullable().meta({
      description:
        'A cancellation asked for while the stock commit was in flight; acted on when inventory answers',
    }),
    history: z.array(
      z.object({
        from: SagaStateEnum,
        to: SagaStateEnum,
        event: SagaEventEnum,
        cause: z
          .string()
          .meta({ description: 'Id of the message, payment operation or deadline that caused it' }),
        at: Timestamp,
        by: z
          .object({
            sub: z.string().meta({
              description:
                "The token subject of the person, or the system part (e.g. 'orders:deadline-sweeper')",
            }),
            role: ActorRoleEnum.meta({
              description: 'The role they acted in; system for messages, payments, deadlines and the reconciliation',
            }),
          })
          .nullable()
          .meta({
            description: 'Who caused the transition; null on transitions recorded before the audit trail',
          }),
      }),
    ),
    order_date: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: z.number().int().positive(),
  })
  .meta({
    description:
      'An order with its checkout saga: state, reason, lines, totals, payment and every transition',
  });
export type OrderView = z.output<typeof OrderView>;

export const OrderSummary = z.object({
  id: OrderId,
  status: OrderStatusEnum,
  state: SagaStateEnum,
  reason: CancelReasonEnum.nullable(),
  zone: ZoneCode,
  total: Money,
  currency: z.literal('RUB'),
  order_date: Timestamp,
});
export type OrderSummary = z.output<typeof OrderSummary>;

export const OrderHistoryPage = z.object({
  items: z.array(OrderSummary).meta({ description: 'Newest first' }),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});
export type OrderHistoryPage = z.output<typeof OrderHistoryPage>;

const iso = (d: Date): string => d.toISOString();

/** An order at the HTTP edge: money as decimal strings, dates as ISO strings, the saga's state, reason and history. */
export function orderView(o: Order): OrderView {
  const s = o.saga;
  return {
    id: o.id,
    checkout_id: o.checkout_id,
    cart_id: o.cart_id,
    user_id: o.user_id,
    zone: o.zone,
    status: o.status,
    state: s.state,
    reason: s.reason,
    deadline: s.deadline ? iso(s.deadline) : null,
    lines: o.items.map((i) => ({
      product_id: i.product_id,
      name: i.name,
      category_id: i.category_id ?? null,
      qty: i.qty,
      unit_price: formatMoney(i.price),
      line_total: formatMoney(i.price * i.qty),
    })),
    totals: {
      items: o.items.reduce((n, i) => n + i.qty, 0),
      total: formatMoney(o.total),
      currency: o.currency,
    },
    payment: {
      step: s.payment.step,
      authorized: s.payment.authorized,
      captured: s.payment.captured,
      reversed: s.payment.reversed,
      reversal_round: s.payment.round ?? 0,
      decline_code: s.payment.decline_code,
    },
    stock_failure: s.stock.failure,
    stock_return: s.stock.return ?? null,
    cancel_requested_at: s.cancel_requested ? iso(s.cancel_requested.at) : null,
    history: s.history.map((h) => ({
      from: h.from,
      to: h.to,
      event: h.event,
      cause: h.cause,
      at: iso(h.at),
      by: h.by ? { sub: h.by.sub, role: h.by.role } : null,
    })),
    order_date: iso(o.order_date),
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
    version: o.version,
  };
}

/** One line of a user's history. */
export function orderSummary(o: Order): OrderSummary {
  return {
    id: o.id,
    status: o.status,
    state: o.saga.state,
    reason: o.saga.reason,
    zone: o.zone,
    total: formatMoney(o.total),
    currency: o.currency,
    order_date: iso(o.order_date),
  };
}
