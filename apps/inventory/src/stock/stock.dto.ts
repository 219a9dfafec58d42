import { z } from 'zod';
import { IsoDateTime, ObjectIdHex, ZoneCode } from '@mw/contracts';
import { IDEMPOTENCY_KEY, STOCK_ETAG } from './stock-writes';

/** Request shapes of the stock API (validated by the endpoint declarations in stock.controller.ts). */
export const StockParams = z.strictObject({ productId: ObjectIdHex, zone: ZoneCode });
export const ProductParams = z.strictObject({ productId: ObjectIdHex });
// Checked as sent (the documented bounds), then trimmed: a blank reason breaks the documented pattern.
const Reason = z.string().min(1).max(200).regex(/\S/, 'must not be blank').trim().meta({ description: 'Why the stock changed (delivery note, stock-take)' });
export const RestockBody = z.strictObject({
  qty: z.number().int().positive().max(1_000_000).meta({ description: 'Units received, a positive whole number' }),
  reason: Reason,
});
export const SetStockBody = z.strictObject({
  available: z.number().int().nonnegative().max(100_000_000).meta({ description: 'Units counted on the shelf' }),
  reason: Reason,
});
/** Restock: the client's key for this delivery (e.g. the delivery note's id); a retry sends the same key. */
export const RestockHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(IDEMPOTENCY_KEY, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -')
    .meta({
      description:
        'Required. One key per delivery (a delivery note id is a good one): a repeat with the same key and body answers the first restock and adds nothing; the same key with another body is a 422. Scoped to the product and zone; the newest 100 keys of each are remembered.',
      example: 'delivery-2026-03-14-0042',
    }),
});
/** Stock-take: the version (ETag) the count was made against. */
export const SetStockHeaders = z.object({
  'if-match': z
    .string()
    .regex(STOCK_ETAG, 'must be one strong ETag of this stock, e.g. "9" (its version in quotes; "0" when never stocked)')
    .meta({
      description:
        'Required (428 without it). The ETag of GET /stock/{productId}/{zone} (its version in quotes) read before counting; if the stock changed since, the answer is 412 INVENTORY.STALE_VERSION and nothing is written.',
      example: '"9"',
    }),
});
export const LowStockQuery = z.strictObject({
  zone: ZoneCode,
  threshold: z.coerce.number().int().nonnegative().max(1_000_000).optional().meta({ description: 'At or below this many available units; the configured default unless given' }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** At most this many products per availability read: a page of a listing. */
export const AVAILABILITY_MAX_PRODUCTS = 100;
const PRODUCT_IDS = new RegExp(`^[0-9a-f]{24}(?:,[0-9a-f]{24}){0,${AVAILABILITY_MAX_PRODUCTS - 1}}$`);
/** A page of products in one zone: `zone=MSK&product_ids=<id>,<id>` (lower-case hex ids, at most 100; repeats count once). */
export const AvailabilityQuery = z.strictObject({
  zone: ZoneCode,
  product_ids: z
    .string()
    .regex(PRODUCT_IDS, `must be 1 to ${AVAILABILITY_MAX_PRODUCTS} comma-separated lower-case hex product ids`)
    .transform((text) => [...new Set(text.split(','))])
    .meta({ description: 'Comma-separated product ids (a page of a listing), at most 100', example: '5eed00000000000000000405,5eed00000000000000000406' }),
});

export const ProductId = z.string().regex(/^[0-9a-f]{24}$/).meta({ description: 'Product id (lower-case hex ObjectId)' });
export const Count = z.number().int().nonnegative();

/** What a client sees of one (product, zone) stock document (`toLevel`). */
export const StockLevelView = z.object({
  product_id: ProductId,
  zone: z.string(),
  available: Count.meta({ description: 'Units that can be reserved' }),
  reserved: Count.meta({ description: 'Units held by open reservations' }),
  committed: Count.meta({ description: 'Units sold' }),
  version: Count.meta({ description: 'Incremented by every change (0: never stocked here)' }),
  updated_at: IsoDateTime.nullable().meta({ description: 'Last change; null when never stocked in this zone' }),
});

/** What anyone sees of a stock level: availability only (reserved and committed are sales figures). */
export const PublicStockLevelView = StockLevelView.pick({ product_id: true, zone: true, available: true }).meta({
  description: 'Anonymous callers and customers: availability only',
});

export const stockLevelExample = {
  product_id: '5eed00000000000000000405',
  zone: 'MSK',
  available: 44,
  reserved: 2,
  committed: 4,
  version: 9,
  updated_at: '2026-03-14T09:26:53.589Z',
};

export const LowStockView = z.object({
  zone: z.string(),
  threshold: Count,
  items: z.array(StockLevelView).meta({ description: 'Lowest available first' }),
});

/** Availability of a page of products in one zone: anyone may read it (no reserved or sold figures). */
export const AvailabilityView = z.object({
  zone: z.string(),
  items: z
    .array(PublicStockLevelView.omit({ zone: true }))
    .meta({ description: 'One per distinct product asked for, in the order asked; 0 where never stocked in the zone' }),
});
