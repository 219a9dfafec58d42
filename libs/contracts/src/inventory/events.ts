import { z } from 'zod';
import { defineMessage } from '../common/message';
import { IsoDateTime, ObjectIdHex, ZoneCode } from '../common/primitives';
import { StockLine } from './commands';

/** Stable rejection codes; consumers switch over them exhaustively. */
export const StockRejectionCode = z.enum([
  'INVENTORY.INSUFFICIENT_STOCK',
  'INVENTORY.UNKNOWN_ZONE',
  'INVENTORY.UNKNOWN_PRODUCT',
  'INVENTORY.INVALID_COMMAND',
  'INVENTORY.TOO_MANY_LINES',
  'INVENTORY.QTY_LIMIT_EXCEEDED',
  'INVENTORY.RESERVATION_RELEASED',
  'INVENTORY.RESERVATION_EXPIRED',
  'INVENTORY.RESERVATION_NOT_FOUND',
  'INVENTORY.NOT_COMMITTED',
]);
export type StockRejectionCode = z.infer<typeof StockRejectionCode>;

export const StockReleaseReason = z.enum(['compensation', 'expired', 'cancelled']);

export const StockReserved = defineMessage(
  'StockReserved',
  z.object({ order_id: ObjectIdHex, zone: ZoneCode, lines: z.array(StockLine).min(1), expires_at: IsoDateTime }),
  'order_id',
);
export const StockRejected = defineMessage(
  'StockRejected',
  z.object({
    order_id: z.string().min(1).max(128),
    code: StockRejectionCode,
    message: z.string().max(1000).optional(),
    shortages: z
      .array(z.object({ product_id: z.string().max(64), requested: z.number(), available: z.number().int() }))
      .max(100),
  }),
  'order_id',
);
export const StockReleased = defineMessage(
  'StockReleased',
  z.object({ order_id: ObjectIdHex, reason: StockReleaseReason }),
  'order_id',
);
export const StockCommitted = defineMessage('StockCommitted', z.object({ order_id: ObjectIdHex }), 'order_id');
/** Commit of a reservation that is gone: an error event with a code, never a silent success. */
export const StockCommitFailed = defineMessage(
  'StockCommitFailed',
  z.object({ order_id: ObjectIdHex, code: StockRejectionCode }),
  'order_id',
);
/** A ReturnStock was applied: the order's committed units are available again (sent again for a repeated command). */
export const StockReturned = defineMessage(
  'StockReturned',
  z.object({ order_id: ObjectIdHex, zone: ZoneCode, lines: z.array(StockLine).min(1) }),
  'order_id',
);
/** A ReturnStock for an order whose stock was never committed (or is unknown here): nothing was moved. */
export const StockReturnFailed = defineMessage(
  'StockReturnFailed',
  z.object({ order_id: ObjectIdHex, code: StockRejectionCode }),
  'order_id',
);
export const StockLevelChanged = defineMessage(
  'StockLevelChanged',
  z.object({ product_id: ObjectIdHex, zone: ZoneCode, available: z.number().int().nonnegative(), version: z.number().int().positive() }),
  'product_id',
);

export const inventoryEventMessages = [
  StockReserved,
  StockRejected,
  StockReleased,
  StockCommitted,
  StockCommitFailed,
  StockReturned,
  StockReturnFailed,
  StockLevelChanged,
] as const;
