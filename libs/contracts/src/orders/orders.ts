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
]);

const OrderRef = z.object({ order_id: ObjectIdHex, user_id: UserId, cart_id: Uuid });

export const OrderCreated = defineMessage(
  'OrderCreated',
  OrderRef.extend({ zone: ZoneCode, total: MinorUnits, currency: z.literal('RUB') }),
  'user_id',
);
export const OrderConfirmed = defineMessage('OrderConfirmed', OrderRef, 'user_id');
export const OrderCancelled = defineMessage(
  'OrderCancelled',
  OrderRef.extend({ reason: OrderCancelReason }),
  'user_id',
);

export const orderMessages = [OrderCreated, OrderConfirmed, OrderCancelled] as const;
