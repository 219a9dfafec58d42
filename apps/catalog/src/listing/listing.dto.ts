import { z } from 'zod';
import { ProductRow, ListingRow } from '../projection/read-model';
import { ProductView, productExample } from '../products/products.dto';
import { Money, ObjectIdParam, PageLimit, price, SlugParam, Timestamp } from '../shared/http-schemas';

export const ListingQuery = z.strictObject({
  limit: PageLimit,
  cursor: z.string().max(200).optional().meta({ description: 'next_cursor of the previous page' }),
});

const ListingItem = z.object({
  id: ObjectIdParam,
  name: z.string(),
  category_id: ObjectIdParam.meta({
    description: "The product's own category (a sub-category of the listed one, or itself)",
  }),
  price: Money,
  currency: z.literal('RUB'),
  attributes: z.record(z.string(), z.string()),
  pct_savings: z.number().int().min(0).max(100).nullable(),
  created_at: Timestamp,
  version: z.number().int().min(1),
});

/** "New in category" from Cassandra, newest first. */
export const ListingPage = z.object({
  category: z.object({ id: ObjectIdParam, slug: SlugParam, name: z.string() }),
  items: z.array(ListingItem),
  next_cursor: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last page' }),
});
export type ListingPage = z.output<typeof ListingPage>;

export const listingExample: ListingPage = {
  category: { id: '65f1a2b3c4d5e6f708190003', slug: 'android', name: 'Android' },
  items: [
    {
      id: productExample.id,
      name: productExample.name,
      category_id: productExample.category_id,
      price: productExample.price,
      currency: 'RUB',
      attributes: productExample.attributes,
      pct_savings: 11,
      created_at: productExample.created_at,
      version: 1,
    },
  ],
  next_cursor: 'WzE3NzIzNTkyMDAwMDAsIjY1ZjFhMmIzYzRkNWU2ZjcwODE5MmEzYiJd',
};

/** The product card from the read model: the write model's fields, eventually consistent. */
export const ProductCard = ProductView.extend({ currency: z.string().meta({ example: 'RUB' }) }).meta({
  description: 'A product card (Cassandra read model)',
});
export type ProductCard = z.output<typeof ProductCard>;

export function toListingItem(r: ListingRow): ListingPage['items'][number] {
  return {
    id: r.product_id,
    name: r.name,
    category_id: r.product_category_id,
    price: price(r.price),
    currency: 'RUB',
    attributes: { ...r.attributes },
    pct_savings: r.pct_savings,
    created_at: r.created_at.toISOString(),
    version: r.version,
  };
}

export function toCard(p: ProductRow): ProductCard {
  return {
    id: p.product_id,
    name: p.name,
    category_id: p.category_id,
    ancestors: [...p.ancestors],
    price: price(p.price),
    currency: p.currency,
    attributes: { ...p.attributes },
    ...(p.list_price !== null && p.retail_price !== null
      ? {
          pricing: {
            list: price(p.list_price),
            retail: price(p.retail_price),
            pct_savings: p.pct_savings ?? 0,
          },
        }
      : {}),
    version: p.version,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}
