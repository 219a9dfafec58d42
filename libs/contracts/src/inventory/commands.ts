import { z } from 'zod';
import { defineMessage } from '../common/message';
import { ObjectIdHex, Quantity, ZoneCode } from '../common/primitives';

export const StockLine = z.object({ product_id: ObjectIdHex, qty: Quantity });
export type StockLine = z.infer<typeof StockLine>;

export const ReserveStock = defineMessage(
  'ReserveStock',
  z.object({
    order_id: ObjectIdHex,
    zone: ZoneCode,
    lines: z.array(StockLine).min(1).max(100),
    hold_seconds: z.number().int().min(1).max(86_400),
  }),
  'order_id',
);
export const ReleaseStock = defineMessage('ReleaseStock', z.object({ order_id: ObjectIdHex }), 'order_id');
/**
 * Turns the order's hold into a sale. `reply`: `always` (absent on older commands) answers
 * StockCommitted or StockCommitFailed; `failure_only` is the confirmed order's sale (ADR 0015 §3):
 * orders confirmed when the payment was captured and waits for no answer, so only a failed sale
 * (StockCommitFailed, the hold gone) is announced and compensated.
 */
export const CommitStock = defineMessage(
  'CommitStock',
  z.object({ order_id: ObjectIdHex, reply: z.enum(['always', 'failure_only']).optional() }),
  'order_id',
);

/**
 * Puts the units of a committed (sold) order back on the shelf: an order the customer cancelled
 * after it was confirmed. Idempotent per order; answered by StockReturned or StockReturnFailed.
 */
export const ReturnStock = defineMessage(
  'ReturnStock',
  z.object({ order_id: ObjectIdHex, reason: z.enum(['cancelled_by_customer']) }),
  'order_id',
);

export const inventoryCommandMessages = [ReserveStock, ReleaseStock, CommitStock, ReturnStock] as const;
