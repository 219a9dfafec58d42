import type { Line, ReservationDoc, ReservationStatus } from './reservation';

/**
 * Returns (pure rules): a ReturnStock puts the committed units of a sold order back on sale. The
 * order's document moves `committed → returned` with `pending: 'return'` and its StockReturned in
 * one update; each line is then moved back on its stock document; `pending` is cleared last.
 */

/**
 * What a ReturnStock does with the order as it is now:
 *  - `return`: committed and its sale applied to every stock document → `returned` + pending work;
 *  - `finish-commit`: committed but the sale is still being applied → finish it first, then return;
 *  - `repeat`: already returned → finish pending work if any, answer StockReturned again, move nothing;
 *  - `fail`: never sold (NOT_COMMITTED) or unknown here (RESERVATION_NOT_FOUND); `tombstone`: no
 *    document yet, one is inserted to carry the answer (and to stop a late ReserveStock).
 */
export type ReturnDecision =
  | { readonly kind: 'return' }
  | { readonly kind: 'finish-commit' }
  | { readonly kind: 'repeat' }
  | { readonly kind: 'fail'; readonly code: ReturnFailureCode; readonly tombstone: boolean };

export type ReturnFailureCode = 'INVENTORY.NOT_COMMITTED' | 'INVENTORY.RESERVATION_NOT_FOUND';

/** Statuses a ReturnStock answers with NOT_COMMITTED: the order is known here but was never sold. */
export const NEVER_SOLD = [
  'reserving',
  'reserved',
  'rejected',
  'released',
  'expired',
] as const satisfies readonly ReservationStatus[];

export function decideReturn(
  doc: Pick<ReservationDoc, 'status' | 'pending' | 'tombstone'> | null,
): ReturnDecision {
  if (!doc) return { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: true };
  // A tombstone: a ReleaseStock/CommitStock (or a ReturnStock) came for an order never reserved here.
  if (doc.tombstone) return { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: false };
  switch (doc.status) {
    case 'committed':
      return doc.pending === 'commit' ? { kind: 'finish-commit' } : { kind: 'return' };
    case 'returned':
      return { kind: 'repeat' };
    case 'reserving':
    case 'reserved':
    case 'rejected':
    case 'released':
    case 'expired':
      return { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false };
  }
}

/**
 * What the stock document of one line says about the order's return, read *before* the order's
 * document (the order of the two reads is what makes the guard sound, see `nextReturnStep`).
 * `null`: no stock document for the line.
 */
export interface StockReturnView {
  /** The document's return fence: incremented by every return applied to it. */
  readonly fence: number;
  /** The document carries this order's return mark: its return is applied, not yet recorded on the order. */
  readonly marked: boolean;
  readonly committed: number;
}

/**
 * The next step of returning one line of a `returned` order:
 *  - `done`: the order records the line as returned (drop the mark if one is left);
 *  - `record`: the stock document has the mark: the units moved, record it on the order, then drop the mark;
 *  - `apply`: move the units, guarded by the fence read here (and no mark), then record, then drop the mark;
 *  - `unbacked`: the document does not hold the units this sale committed — nothing is moved (the order
 *    stays pending and is reported; a counter never goes negative).
 *
 * Why it is returned once: the mark is dropped only after the order records the line, and the
 * apply is conditional on the fence of the stock read, which precedes the order read. If the units
 * had moved before the stock read, that read shows the mark, or the mark was already dropped —
 * then the order (read after) records the line. If they move after the stock read, the fence moved
 * and the apply matches nothing. No bounded memory is involved.
 */
export type ReturnStep =
  | { readonly step: 'done'; readonly dropMark: boolean }
  | { readonly step: 'record' }
  | { readonly step: 'apply'; readonly fence: number }
  | { readonly step: 'unbacked' };

export function nextReturnStep(line: Line, stock: StockReturnView | null, recorded: boolean): ReturnStep {
  if (recorded) return { step: 'done', dropMark: stock?.marked ?? false };
  if (stock?.marked) return { step: 'record' };
  if (!stock || stock.committed < line.qty) return { step: 'unbacked' };
  return { step: 'apply', fence: stock.fence };
}

/**
 * Units of returned orders whose return is not yet applied to one stock document (they are still in
 * its `committed` counter although their order no longer counts as a sale): neither recorded on the
 * order nor marked on the document. Read in one snapshot with the document.
 */
export function unappliedReturns(
  returning: readonly { order_id: string; qty: number; recorded: boolean }[],
  marked: ReadonlySet<string>,
): number {
  return returning.filter((r) => !r.recorded && !marked.has(r.order_id)).reduce((n, r) => n + r.qty, 0);
}
