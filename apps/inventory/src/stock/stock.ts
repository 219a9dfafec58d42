import type { WithOutbox } from '@mw/messaging';
import type { LedgerEntry, StockCounters } from '../ledger/ledger';

/** One open hold of an order on a (product, zone) document (seed 004's `carted`). */
export interface Hold {
  readonly order_id: string;
  readonly qty: number;
  readonly expires_at: Date;
}

/** One document per (product, zone). */
export interface StockDoc extends StockCounters, WithOutbox {
  readonly _id: string;
  readonly product_id: string;
  readonly zone: string;
  readonly reservations: Hold[];
  /** Incremented by every change; carried by StockLevelChanged so read models drop stale levels. */
  readonly version: number;
  /** Set by every change of `available`; the level notifier publishes one coalesced StockLevelChanged. */
  readonly level_dirty?: boolean;
  /** Ledger entries written with the change, not yet moved to the ledger collection. */
  readonly _ledger?: LedgerEntry[];
  readonly created_at: Date;
  readonly updated_at: Date;
}

export const stockKey = (productId: string, zone: string): string => `${productId.toLowerCase()}:${zone}`;

export const heldQty = (doc: Pick<StockDoc, 'reservations'>): number => doc.reservations.reduce((n, h) => n + h.qty, 0);

export const holdOf = (doc: Pick<StockDoc, 'reservations'>, orderId: string): Hold | undefined =>
  doc.reservations.find((h) => h.order_id === orderId);

/** Public view of a stock document. */
export interface StockLevel {
  readonly product_id: string;
  readonly zone: string;
  readonly available: number;
  readonly reserved: number;
  readonly committed: number;
  readonly version: number;
  readonly updated_at: string | null;
}

export function toLevel(doc: StockDoc): StockLevel {
  return {
    product_id: doc.product_id,
    zone: doc.zone,
    available: doc.available,
    reserved: doc.reserved,
    committed: doc.committed,
    version: doc.version,
    updated_at: doc.updated_at.toISOString(),
  };
}

export const emptyLevel = (productId: string, zone: string): StockLevel => ({
  product_id: productId,
  zone,
  available: 0,
  reserved: 0,
  committed: 0,
  version: 0,
  updated_at: null,
});
