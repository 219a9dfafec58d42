import { Catalog } from '@mw/contracts';
import { pctSavings } from '../shared/money';

/** A product of the write model (kopecks, hex ids). */
export interface Product {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  /** Root first, the category itself last. */
  readonly ancestors: readonly string[];
  readonly price: number;
  readonly currency: 'RUB';
  readonly attributes: Readonly<Record<string, string>>;
  readonly pricing?: { readonly list: number; readonly retail: number; readonly pct_savings: number };
  readonly version: number;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface ProductChange {
  readonly name?: string;
  readonly category?: { readonly id: string; readonly ancestors: readonly string[] };
  readonly price?: number;
  readonly attributes?: Readonly<Record<string, string>>;
  /** null removes the pricing block. */
  readonly pricing?: { readonly list: number; readonly retail: number } | null;
}

export type ChangeEvent = 'ProductUpdated' | 'ProductPriceChanged' | 'ProductCategoryChanged';

export interface ChangeResult {
  readonly next: Product;
  /** null: nothing changed, nothing is written (a repeated PATCH is a no-op). */
  readonly event: ChangeEvent | null;
}

export function pricingOf(p: { list: number; retail: number }): NonNullable<Product['pricing']> {
  return { list: p.list, retail: p.retail, pct_savings: pctSavings(p.list, p.retail) };
}

/**
 * Applies a change and names the event it makes. A category change (id or ancestry) wins,
 * because the read side must delete old rows; a price-only change is ProductPriceChanged.
 */
export function applyChange(p: Product, change: ProductChange, now: Date): ChangeResult {
  const next: Product = {
    ...p,
    name: change.name ?? p.name,
    category_id: change.category?.id ?? p.category_id,
    ancestors: change.category?.ancestors ?? p.ancestors,
    price: change.price ?? p.price,
    attributes: change.attributes ?? p.attributes,
    pricing:
      change.pricing === undefined
        ? p.pricing
        : change.pricing === null
          ? undefined
          : pricingOf(change.pricing),
  };
  const categoryChanged = next.category_id !== p.category_id || !sameList(next.ancestors, p.ancestors);
  const priceChanged = next.price !== p.price;
  const otherChanged =
    next.name !== p.name ||
    !sameRecord(next.attributes, p.attributes) ||
    JSON.stringify(next.pricing) !== JSON.stringify(p.pricing);
  const event: ChangeEvent | null = categoryChanged
    ? 'ProductCategoryChanged'
    : priceChanged && !otherChanged
      ? 'ProductPriceChanged'
      : priceChanged || otherChanged
        ? 'ProductUpdated'
        : null;
  if (!event) return { next: p, event: null };
  return { next: { ...next, version: p.version + 1, updated_at: now }, event };
}

export function toSnapshot(p: Product): Catalog.ProductSnapshot {
  return {
    product_id: p.id,
    version: p.version,
    name: p.name,
    category_id: p.category_id,
    ancestors: [...p.ancestors],
    price: p.price,
    currency: p.currency,
    attributes: { ...p.attributes },
    ...(p.pricing ? { pricing: { ...p.pricing } } : {}),
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}
