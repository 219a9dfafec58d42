import { z } from 'zod';
import { defineMessage } from '../common/message';
import { MinorUnits, ObjectIdHex, UserId, Uuid, ZoneCode } from '../common/primitives';

export const OrderCancelReason = z.enum([
  'STOCK_REJECTED',
  'PAYMENT_DECLINED',
  'STOCK_DEADLINE_EXCEEDED',
  'PAYMENT_DEADLINE_EXCEEDED',
  'COMMIT_FAILED',
  'CANCELLED_BY_USER',
  /** Support cancelled the order for the customer (`cancelled_by` names who). */
  'CANCELLED_BY_SUPPORT',
]);

/**
 * Who did something to an order (the audit trail): the token subject and the role they acted in,
 * or `system` with the part of a service that decided it (e.g. `orders:deadline-sweeper`).
 */
export const OrderActor = z.object({
  sub: z.string().min(1).max(100),
  role: z.enum(['customer', 'support', 'operator', 'system']),
});

/** Why a checkout could not become an order at all (it is answered, so the cart never waits forever). */
export const OrderRejectCode = z.enum(['ZONE_NOT_SERVED', 'TOTAL_MISMATCH', 'INVALID_CHECKOUT']);

/** Every order outcome carries the checkout it answers: a cart reopens only for its current checkout. */
const OrderRef = z.object({ order_id: ObjectIdHex, user_id: UserId, cart_id: Uuid, checkout_id: Uuid });

export const OrderCreated = defineMessage(
  'OrderCreated',
  OrderRef.extend({ zone: ZoneCode, total: MinorUnits, currency: z.literal('RUB') }),
  'user_id',
);
export const OrderConfirmed = defineMessage('OrderConfirmed', OrderRef, 'user_id');
/**
 * The order ended cancelled. `after_confirmation`: it had been confirmed (stock sold, money taken)
 * and the customer cancelled it before delivery; the cart stays ordered, the sale is reversed.
 * `cancelled_by`: who decided it — the customer or support who asked, or the system part (absent
 * on events of orders whose history predates the audit trail).
 */
export const OrderCancelled = defineMessage(
  'OrderCancelled',
  OrderRef.extend({
    reason: OrderCancelReason,
    after_confirmation: z.boolean().optional(),
    cancelled_by: OrderActor.optional(),
  }),
  'user_id',
);
/** A confirmed order was handed to delivery (status delivering); it can no longer be cancelled. */
export const OrderDeliveryStarted = defineMessage('OrderDeliveryStarted', OrderRef, 'user_id');
/** The order was delivered (status completed). */
export const OrderCompleted = defineMessage('OrderCompleted', OrderRef, 'user_id');

export const OrderRejected = defineMessage(
  'OrderRejected',
  z.object({
    checkout_id: Uuid,
    cart_id: Uuid,
    user_id: UserId,
    code: OrderRejectCode,
    /** The offending field of the checkout (e.g. "zone", "total"). */
    field: z.string().min(1).max(100),
    message: z.string().min(1).max(500),
  }),
  'user_id',
);

export const orderMessages = [
  OrderCreated,
  OrderConfirmed,
  OrderCancelled,
  OrderDeliveryStarted,
  OrderCompleted,
  OrderRejected,
] as const;
