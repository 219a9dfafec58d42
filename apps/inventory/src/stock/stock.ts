import type { WithOutbox } from '@mw/messaging';
import type { LedgerEntry, StockCounters } from '../ledger/ledger';
import type { RestockKey } from './stock-writes';

/** One open hold of an order on a (product, zone) document (seed 004's `carted`). */
export interface Hold {
  readonly order_id: string;
  readonly qty: number;
  readonly expires_at: Date;
}

/** How an order's line on this document was settled: sold, given back, or sold and then returned. */
export type SettledAs = 'committed' | 'released' | 'expired' | 'returned';

/**
 * The memory of an order whose line on this document is settled. While it is kept, no hold can be
 * taken for that order here again (the hold update is guarded by it), so a stale processor, a
 * redelivered command or a resumed copy can never hold — and so never sell — the line twice.
 * Bounded per document (the newest `settledKeep` are kept, see StockRepository).
 */
export interface Settled {
  readonly order_id: string;
  readonly as: SettledAs;
  readonly at: Date;
}

/**
 * A return applied to this document whose order does not yet record it (see reservations/returns.ts):
 * the units are back in `available`; the mark is dropped once the order records the line.
 */
export interface ReturnMark {
  readonly order_id: string;
  readonly qty: number;
  readonly at: Date;
}

/** One document per (product, zone). */
export interface StockDoc extends StockCounters, WithOutbox {
  readonly _id: string;
  readonly product_id: string;
  readonly zone: string;
  readonly reservations: Hold[];
  /** Orders settled on this document, oldest first, bounded (absent on documents older than the field). */
  readonly settled?: Settled[];
  /** Returns applied here whose order does not record them yet: only returns in flight, so few. */
  readonly return_marks?: ReturnMark[];
  /** Incremented by every return applied here (absent before the first); the apply is conditional on it. */
  readonly return_fence?: number;
  /** The latest restocks made with an Idempotency-Key, oldest first, bounded (RESTOCK_KEYS_KEPT). */
  readonly restock_keys?: RestockKey[];
  /** Incremented by every change; carried by StockLevelChanged so read models drop stale levels. */
  readonly version: number;
  /** Set by every change of `available`; the stock pass publishes one coalesced StockLevelChanged. */
  readonly level_dirty?: boolean;
  /** Ledger entries written with the change, not yet moved to the ledger collection. */
  readonly _ledger?: LedgerEntry[];
  readonly created_at: Date;
  readonly updated_at: Date;
}

export const stockKey = (productId: string, zone: string): string => `${productId.toLowerCase()}:${zone}`;

export const heldQty = (doc: Pick<StockDoc, 'reservations'>): number =>
  doc.reservations.reduce((n, h) => n + h.qty, 0);

export const holdOf = (doc: Pick<StockDoc, 'reservations'>, orderId: string): Hold | undefined =>
  doc.reservations.find((h) => h.order_id === orderId);

export const settledOf = (doc: Pick<StockDoc, 'settled'>, orderId: string): SettledAs | undefined =>
  doc.settled?.find((m) => m.order_id === orderId)?.as;

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

/** The staff roles that see a level's reserved and committed units, version and last change (ADR 0040). */
export const STOCK_STAFF_ROLES = ['stock_manager', 'operator', 'support'] as const;

/** What a caller may see of a level: staff everything, anyone else the availability only. */
export function levelFor(
  level: StockLevel,
  staff: boolean,
): StockLevel | Pick<StockLevel, 'product_id' | 'zone' | 'available'> {
  return staff ? level : { product_id: level.product_id, zone: level.zone, available: level.available };
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
