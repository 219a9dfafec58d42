/**
 * The carts' own copy of what a cart needs from the catalog (name, price, category) and from
 * inventory (available per zone). Plain rules: which write an event makes, at which timestamp.
 * No driver import. Prices never come from a client (ADR 0060).
 */
export interface PricedProduct {
  readonly product_id: string;
  readonly name: string;
  readonly category_id: string;
  /** Minor units (kopecks). */
  readonly price: number;
  readonly version: number;
}

export interface StockLevel {
  readonly product_id: string;
  readonly zone: string;
  readonly available: number;
  readonly version: number;
}

/**
 * Write timestamp of a product event, as the catalog projector (ADR 0032): creation time in ms ×
 * 1000 + version. Monotonic in the version of one product, so a duplicate rewrites identical cells
 * and an older event arriving late is shadowed, including by the tombstone of a deletion.
 */
export function productTimestamp(createdAt: string, version: number): bigint {
  return BigInt(new Date(createdAt).getTime()) * 1000n + BigInt(version);
}

/** Stock levels of one (product, zone) are ordered by the inventory document's version alone. */
export function stockTimestamp(version: number): bigint {
  return BigInt(version);
}

interface SnapshotFields {
  readonly product_id: string;
  readonly version: number;
  readonly name: string;
  readonly category_id: string;
  readonly price: number;
  readonly created_at: string;
}

export type CatalogEvent =
  | {
      readonly type: 'ProductCreated' | 'ProductUpdated' | 'ProductPriceChanged' | 'ProductCategoryChanged';
      readonly payload: SnapshotFields;
    }
  | {
      readonly type: 'ProductDeleted';
      readonly payload: {
        readonly product_id: string;
        readonly version: number;
        readonly created_at: string;
      };
    };

export type ProductWrite =
  | { readonly kind: 'upsert'; readonly timestamp: bigint; readonly product: PricedProduct }
  | { readonly kind: 'delete'; readonly timestamp: bigint; readonly product_id: string };

/** Every catalog event carries the full snapshot (or the deletion): the row is replaced, never patched. */
export function productWriteFor(e: CatalogEvent): ProductWrite {
  const timestamp = productTimestamp(e.payload.created_at, e.payload.version);
  switch (e.type) {
    case 'ProductDeleted':
      return { kind: 'delete', timestamp, product_id: e.payload.product_id };
    case 'ProductCreated':
    case 'ProductUpdated':
    case 'ProductPriceChanged':
    case 'ProductCategoryChanged': {
      const s = e.payload;
      return {
        kind: 'upsert',
        timestamp,
        product: {
          product_id: s.product_id,
          name: s.name,
          category_id: s.category_id,
          price: s.price,
          version: s.version,
        },
      };
    }
  }
}

/**
 * What carts know of a zone's stock is advisory (inventory decides at reservation): a quantity
 * above a known level is refused when it is put; an unknown level (no event seen) is not.
 */
export function exceedsKnownStock(level: StockLevel | null, qty: number): boolean {
  return level !== null && qty > level.available;
}

/**
 * The levels a batch has to write: the newest (highest version) per (product, zone). Older ones
 * would be shadowed by its timestamp anyway; skipping them saves the writes, not a decision.
 */
export function latestLevels(levels: readonly StockLevel[]): StockLevel[] {
  const latest = new Map<string, StockLevel>();
  for (const l of levels) {
    const key = `${l.product_id}|${l.zone}`;
    const seen = latest.get(key);
    if (!seen || l.version > seen.version) latest.set(key, l);
  }
  return [...latest.values()];
}
