import { z } from 'zod';
import { Attributes, Money, ObjectIdParam, PriceInput, price, Timestamp } from '../shared/http-schemas';
import { Product } from './product';

/** Checked as sent (so the documented limits are exact), stored trimmed. */
const Name = z
  .string()
  .max(300)
  .regex(/\S/, 'must not be blank')
  .trim()
  .meta({ example: 'Samsung Galaxy S24 128 ГБ черный' });
const PricingInput = z
  .strictObject({ list: PriceInput, retail: PriceInput })
  .refine((p) => p.retail <= p.list, {
    message: 'retail must not exceed list',
    path: ['retail'],
  })
  .meta({ description: 'List and retail price; retail must not exceed list' });

export const CreateProductBody = z.strictObject({
  name: Name,
  category_id: ObjectIdParam,
  price: PriceInput,
  attributes: Attributes.default({}),
  pricing: PricingInput.optional(),
});
export type CreateProductBody = z.infer<typeof CreateProductBody>;

/** PUT replaces every field. */
export const ReplaceProductBody = CreateProductBody;

export const PatchProductBody = z
  .strictObject({
    name: Name.optional(),
    category_id: ObjectIdParam.optional(),
    price: PriceInput.optional(),
    attributes: Attributes.optional(),
    pricing: PricingInput.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'nothing to change')
  .meta({ minProperties: 1 });
export type PatchProductBody = z.infer<typeof PatchProductBody>;

const Pricing = z.object({
  list: Money,
  retail: Money,
  pct_savings: z
    .number()
    .int()
    .min(0)
    .max(100)
    .meta({ description: 'Whole-percent saving of retail against list' }),
});

/** A product as the write side answers it (MongoDB). */
export const ProductView = z
  .object({
    id: ObjectIdParam,
    name: z.string(),
    category_id: ObjectIdParam,
    ancestors: z
      .array(ObjectIdParam)
      .meta({ description: 'Category ids, root first, the category itself last' }),
    price: Money,
    currency: z.literal('RUB'),
    attributes: z.record(z.string(), z.string()),
    pricing: Pricing.optional(),
    version: z.number().int().min(1),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ description: 'A product' });
export type ProductView = z.output<typeof ProductView>;

export const productExample: ProductView = {
  id: '65f1a2b3c4d5e6f708192a3b',
  name: 'Samsung Galaxy S24 128 ГБ черный',
  category_id: '65f1a2b3c4d5e6f708190003',
  ancestors: ['65f1a2b3c4d5e6f708190001', '65f1a2b3c4d5e6f708190002', '65f1a2b3c4d5e6f708190003'],
  price: '79999.90',
  currency: 'RUB',
  attributes: { color: 'черный', ram_gb: '8' },
  pricing: { list: '89999.90', retail: '79999.90', pct_savings: 11 },
  version: 1,
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:00:00.000Z',
};

export function toView(p: Product): ProductView {
  return {
    id: p.id,
    name: p.name,
    category_id: p.category_id,
    ancestors: [...p.ancestors],
    price: price(p.price),
    currency: p.currency,
    attributes: { ...p.attributes },
    ...(p.pricing
      ? {
          pricing: {
            list: price(p.pricing.list),
            retail: price(p.pricing.retail),
            pct_savings: p.pricing.pct_savings,
          },
        }
      : {}),
    version: p.version,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}
