import { z } from 'zod';
import { defineMessage } from '../common/message';
import { AggregateVersion, IsoDateTime, MinorUnits, ObjectIdHex } from '../common/primitives';

/** Optional list/retail pricing (seed 000/004), in minor units; pct_savings is a whole percentage. */
export const Pricing = z.object({
  list: MinorUnits,
  retail: MinorUnits,
  pct_savings: z.number().int().min(0).max(100),
});

/** The full state of a product after a change: projections replace rows from it. */
export const ProductSnapshot = z.object({
  product_id: ObjectIdHex,
  version: AggregateVersion,
  name: z.string().min(1).max(300),
  category_id: ObjectIdHex,
  /** The category's ancestor ids, root first, the category itself last. */
  ancestors: z.array(ObjectIdHex).max(32),
  price: MinorUnits,
  currency: z.literal('RUB'),
  attributes: z.record(z.string().max(64), z.string().max(256)),
  pricing: Pricing.optional(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type ProductSnapshot = z.infer<typeof ProductSnapshot>;

export const ProductCreated = defineMessage('ProductCreated', ProductSnapshot, 'product_id');
export const ProductUpdated = defineMessage('ProductUpdated', ProductSnapshot, 'product_id');
export const ProductPriceChanged = defineMessage(
  'ProductPriceChanged',
  ProductSnapshot.extend({ previous_price: MinorUnits }),
  'product_id',
);
export const ProductCategoryChanged = defineMessage(
  'ProductCategoryChanged',
  ProductSnapshot.extend({ previous_category_id: ObjectIdHex, previous_ancestors: z.array(ObjectIdHex).max(32) }),
  'product_id',
);
export const ProductDeleted = defineMessage(
  'ProductDeleted',
  z.object({
    product_id: ObjectIdHex,
    version: AggregateVersion,
    category_id: ObjectIdHex,
    ancestors: z.array(ObjectIdHex).max(32),
    created_at: IsoDateTime,
    deleted_at: IsoDateTime,
  }),
  'product_id',
);

export const productMessages = [
  ProductCreated,
  ProductUpdated,
  ProductPriceChanged,
  ProductCategoryChanged,
  ProductDeleted,
] as const;
