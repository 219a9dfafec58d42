import { ObjectId } from 'mongodb';
import { ProductDoc } from '../shared/catalog-db';
import { Product } from './product';

export function toProduct(d: ProductDoc): Product {
  return {
    id: d._id.toHexString(),
    name: d.name,
    category_id: d.category_id.toHexString(),
    ancestors: d.ancestors.map((a) => a.toHexString()),
    price: d.price,
    currency: d.currency,
    attributes: d.attributes,
    ...(d.pricing ? { pricing: d.pricing } : {}),
    version: d.version,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The document fields of a product (without _id and outbox). */
export function toFields(p: Product): Omit<ProductDoc, '_id' | '_outbox' | 'deleted_at'> {
  return {
    name: p.name,
    category_id: new ObjectId(p.category_id),
    ancestors: p.ancestors.map((a) => new ObjectId(a)),
    price: p.price,
    currency: p.currency,
    attributes: { ...p.attributes },
    ...(p.pricing ? { pricing: { ...p.pricing } } : {}),
    discount_pct: p.pricing?.pct_savings ?? 0,
    version: p.version,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
