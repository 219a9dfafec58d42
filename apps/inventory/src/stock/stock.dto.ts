import { z } from 'zod';
import { ObjectIdHex, ZoneCode } from '@mw/contracts';

export const StockParams = z.strictObject({ productId: ObjectIdHex, zone: ZoneCode });
export const ProductParams = z.strictObject({ productId: ObjectIdHex });
const Reason = z.string().trim().min(1).max(200);
export const RestockBody = z.strictObject({ qty: z.number().int().positive().max(1_000_000), reason: Reason });
export const SetStockBody = z.strictObject({ available: z.number().int().nonnegative().max(100_000_000), reason: Reason });
export const LowStockQuery = z.strictObject({
  zone: ZoneCode,
  threshold: z.coerce.number().int().nonnegative().max(1_000_000).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const StockLevelSchema = {
  type: 'object',
  properties: {
    product_id: { type: 'string' },
    zone: { type: 'string' },
    available: { type: 'integer' },
    reserved: { type: 'integer' },
    committed: { type: 'integer' },
    version: { type: 'integer' },
    updated_at: { type: 'string', format: 'date-time', nullable: true },
  },
};
