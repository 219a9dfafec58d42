import { z } from 'zod';
import { defineMessage } from '../common/message';
import { MinorUnits, ObjectIdHex, Quantity, UserId, Uuid, ZoneCode } from '../common/primitives';

export const CheckoutLine = z.object({
  product_id: ObjectIdHex,
  name: z.string().min(1).max(300),
  category_id: ObjectIdHex.optional(),
  qty: Quantity,
  /** Price snapshot at checkout, minor units. */
  unit_price: MinorUnits,
});

export const CheckoutRequested = defineMessage(
  'CheckoutRequested',
  z.object({
    cart_id: Uuid,
    /** One id per checkout attempt; orders derives the order id from it, so a duplicate creates nothing. */
    checkout_id: Uuid,
    user_id: UserId,
    zone: ZoneCode,
    currency: z.literal('RUB'),
    lines: z.array(CheckoutLine).min(1).max(100),
    total: MinorUnits,
  }),
  'cart_id',
);

export const cartCheckoutMessages = [CheckoutRequested] as const;

export type CheckoutRequestedPayload = z.infer<typeof CheckoutRequested.schema>;
