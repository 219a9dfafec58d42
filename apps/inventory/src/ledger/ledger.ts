/**
 * The append-only movements ledger (pure rules). Every change of a stock document carries one
 * entry, written atomically with the change into the document's `_ledger` array and then moved to
 * the `ledger` collection by the stock pass (see stock/stock-pass.ts), so the ledger can never miss a
 * movement and never count one twice (entries are keyed by a uuid).
 */
import type { StockActor } from '../stock/stock-writes';

/** `return`: units of a sold order put back on sale (ReturnStock): committed → available. */
export const LEDGER_KINDS = [
  'restock',
  'adjust',
  'reserve',
  'release',
  'expire',
  'commit',
  'return',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface LedgerEntry {
  readonly _id: string;
  readonly product_id: string;
  readonly zone: string;
  readonly kind: LedgerKind;
  /** Units moved; positive, except `adjust`, whose sign is the direction of the correction. */
  readonly qty: number;
  /** The order of a reservation movement (reserve, release, expire, commit, return): it is the cause. */
  readonly order_id?: string;
  readonly reason?: string;
  /** Who made a restock or a stock-take (token subject and acting role); absent on entries older than the audit. */
  readonly by?: StockActor;
  /** The Idempotency-Key of a restock (a delivery note's id, for instance). */
  readonly idempotency_key?: string;
  readonly at: Date;
}

/** The counters a stock document keeps. */
export interface StockCounters {
  readonly available: number;
  readonly reserved: number;
  readonly committed: number;
  /** Units received by restocks. */
  readonly received: number;
  /** Net correction by stock-takes (`adjust`); the seed's "adjustments" are its negation. */
  readonly adjusted: number;
}

export const zeroCounters: StockCounters = {
  available: 0,
  reserved: 0,
  committed: 0,
  received: 0,
  adjusted: 0,
};

/** How one movement changes the counters. */
export function effectOf(kind: LedgerKind, qty: number): StockCounters {
  switch (kind) {
    case 'restock':
      return { ...zeroCounters, available: qty, received: qty };
    case 'adjust':
      return { ...zeroCounters, available: qty, adjusted: qty };
    case 'reserve':
      return { ...zeroCounters, available: -qty, reserved: qty };
    case 'release':
    case 'expire':
      return { ...zeroCounters, available: qty, reserved: -qty };
    case 'commit':
      return { ...zeroCounters, reserved: -qty, committed: qty };
    case 'return':
      return { ...zeroCounters, committed: -qty, available: qty };
  }
}

export function addCounters(a: StockCounters, b: StockCounters): StockCounters {
  return {
    available: a.available + b.available,
    reserved: a.reserved + b.reserved,
    committed: a.committed + b.committed,
    received: a.received + b.received,
    adjusted: a.adjusted + b.adjusted,
  };
}

/** Counters a document must have if it started empty and saw exactly these movements. */
export function replay(entries: readonly Pick<LedgerEntry, 'kind' | 'qty'>[]): StockCounters {
  return entries.reduce((acc, e) => addCounters(acc, effectOf(e.kind, e.qty)), zeroCounters);
}

export interface InvariantReport {
  readonly product_id: string;
  readonly zone: string;
  readonly ok: boolean;
  readonly counters: StockCounters;
  readonly from_ledger: StockCounters;
  readonly held: number;
  readonly sales?: Sales;
  readonly problems: readonly string[];
}

/** What the reservations say was sold from one (product, zone). */
export interface Sales {
  /** Units of the product in the zone on committed reservations. */
  readonly sold: number;
  /** Of those, units whose commit is not yet applied to the document (still held there). */
  readonly applying: number;
  /**
   * Units of returned orders whose return is not yet applied to the document: no longer a sale on
   * their order, still in the document's `committed` until the return moves them (absent: none).
   */
  readonly returning?: number;
}

/**
 * available + reserved + committed = received − adjustments, no negative counter, the reserved
 * counter equals the sum of open holds, the counters equal the replay of the ledger, and (given the
 * sales) `committed` equals the units of committed reservations whose commit is applied, plus the
 * units of returned orders whose return is not yet applied — so a unit sold twice, or returned
 * twice, shows even though the counters and the ledger agree with each other.
 */
export function checkInvariant(
  id: { product_id: string; zone: string },
  counters: StockCounters,
  held: number,
  fromLedger: StockCounters,
  sales?: Sales,
): InvariantReport {
  const problems: string[] = [];
  const { available, reserved, committed, received, adjusted } = counters;
  if (available < 0) problems.push(`available is negative (${available})`);
  if (reserved < 0) problems.push(`reserved is negative (${reserved})`);
  if (committed < 0) problems.push(`committed is negative (${committed})`);
  if (sales && committed !== sales.sold - sales.applying + (sales.returning ?? 0)) {
    const applying = sales.applying > 0 ? `, ${sales.applying} of them not yet applied` : '';
    const returning =
      (sales.returning ?? 0) > 0 ? `, plus ${sales.returning} returned but not yet put back` : '';
    problems.push(
      `committed = ${committed} but committed reservations sum to ${sales.sold}${applying}${returning}`,
    );
  }
  if (available + reserved + committed !== received + adjusted) {
    problems.push(
      `available + reserved + committed = ${available + reserved + committed} but received − adjustments = ${received + adjusted}`,
    );
  }
  if (reserved !== held) problems.push(`reserved = ${reserved} but open holds sum to ${held}`);
  for (const k of Object.keys(counters) as (keyof StockCounters)[]) {
    if (counters[k] !== fromLedger[k])
      problems.push(`${k} = ${counters[k]} but the ledger says ${fromLedger[k]}`);
  }
  return {
    ...id,
    ok: problems.length === 0,
    counters,
    from_ledger: fromLedger,
    held,
    ...(sales ? { sales } : {}),
    problems,
  };
}
