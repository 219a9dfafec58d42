import { z } from 'zod';
import { Attributes, ObjectIdParam, PriceInput, price } from '../shared/http-schemas';
import { Product } from './product';

const Name = z.string().trim().min(1).max(300);
const PricingInput = z
  .strictObject({ list: PriceInput, retail: PriceInput })
  .refine((p) => p.retail <= p.list, {
    message: 'retail must not exceed list',
    path: ['retail'],
  });

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
  .refine((b) => Object.keys(b).length > 0, 'nothing to change');
export type PatchProductBody = z.infer<typeof PatchProductBody>;

export interface ProductView {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly ancestors: readonly string[];
  readonly price: string;
  readonly currency: 'RUB';
  readonly attributes: Readonly<Record<string, string>>;
  readonly pricing?: { readonly list: string; readonly retail: string; readonly pct_savings: number };
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export function toView(p: Product): ProductView {
  return {
    id: p.id,
    name: p.name,
    category_id: p.category_id,
    ancestors: p.ancestors,
    price: price(p.price),
    currency: p.currency,
    attributes: p.attributes,
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
