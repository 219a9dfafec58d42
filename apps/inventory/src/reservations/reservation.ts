import type { Inventory } from '@mw/contracts';
import type { WithOutbox } from '@mw/messaging';

/**
 * Per-order reservation (pure rules). The order's document is the aggregate that owns the
 * order-level answer: its status changes by conditional updates, and the answer (StockReserved,
 * StockRejected, StockReleased, StockCommitted, StockCommitFailed, StockReturned) is pushed into
 * its `_outbox` by the same update, so each answer is written exactly once per order.
 *
 *   reserving ──► reserved ──► committed ──► returned (ReturnStock: sold units back on sale)
 *       │            ├──────► released (ReleaseStock)
 *       │            └──────► expired  (sweeper, or a commit after expires_at)
 *       ├──► rejected (a short line: holds already taken are undone)
 *       └──► released (ReleaseStock overtook the reservation)
 *
 * `returned` is terminal: no command moves an order out of it, so a late ReserveStock or
 * CommitStock can neither hold nor sell its lines again.
 */
export type ReservationStatus =
  'reserving' | 'reserved' | 'rejected' | 'released' | 'expired' | 'committed' | 'returned';

/** Work left on the stock documents after a status change; cleared when done (crash-safe). */
export type PendingWork = 'undo' | 'commit' | 'return';

export const PENDING_WORK: readonly PendingWork[] = ['undo', 'commit', 'return'];

export type RejectionCode = Inventory.StockRejectionCode;

export interface Line {
  readonly product_id: string;
  readonly qty: number;
}

export interface Shortage {
  readonly product_id: string;
  readonly requested: number;
  readonly available: number;
}

export interface ReservationDoc extends WithOutbox {
  readonly _id: string;
  readonly zone: string;
  readonly lines: Line[];
  readonly status: ReservationStatus;
  readonly expires_at: Date;
  /** The hold time the command asked for; a resumed order is reserved for this long from the resume. */
  readonly hold_ms?: number;
  readonly pending?: PendingWork;
  readonly rejection?: { code: RejectionCode; message?: string; shortages: Shortage[] };
  readonly release_reason?: 'compensation' | 'expired' | 'cancelled';
  readonly commit_failure?: RejectionCode;
  /** Created by a ReleaseStock/CommitStock for an order never reserved; a late ReserveStock is rejected once. */
  readonly tombstone?: boolean;
  /** A ReleaseStock of a rejected order was answered (once). */
  readonly release_answered?: boolean;
  readonly return_reason?: 'cancelled_by_customer';
  /**
   * Products whose committed units are back in `available` (status `returned`): recorded after the
   * stock document's update, before its return mark is dropped (see stock-return.ts).
   */
  readonly returned_lines?: string[];
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface ReserveLimits {
  readonly zones: readonly string[];
  readonly maxLines: number;
  readonly maxQtyPerLine: number;
  /**
   * Longest hold inventory grants (INVENTORY_MAX_HOLD_SECONDS): a ReserveStock asking for more is
   * held this long, whoever sent it (ADR 0009). Absent: the contract's bound, 86,400 s.
   */
  readonly maxHoldSeconds?: number;
}

/** The contract's bound of ReserveStock.hold_seconds. */
export const CONTRACT_MAX_HOLD_SECONDS = 86_400;

/** Seconds a valid ReserveStock is held: what it asks, at most the service's own maximum. */
export function grantedHoldSeconds(requested: number, limits: ReserveLimits): number {
  return Math.min(requested, limits.maxHoldSeconds ?? CONTRACT_MAX_HOLD_SECONDS);
}

export interface Problem {
  readonly code: RejectionCode;
  readonly message: string;
}

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/**
 * Semantic checks of a ReserveStock payload. Takes loosely typed input so the same rules answer
 * both well-formed commands and salvaged ones that failed the contract (negative or fractional
 * qty, malformed product ids, too many lines): every one gets a StockRejected with a code.
 */
export function validateReserve(
  cmd: { zone: unknown; lines: readonly { product_id: unknown; qty: unknown }[]; hold_seconds: unknown },
  limits: ReserveLimits,
): Problem | null {
  if (typeof cmd.zone !== 'string' || !limits.zones.includes(cmd.zone)) {
    return {
      code: 'INVENTORY.UNKNOWN_ZONE',
      message: `zone ${String(cmd.zone).slice(0, 20)} is not served (zones: ${limits.zones.join(', ')})`,
    };
  }
  if (cmd.lines.length === 0)
    return { code: 'INVENTORY.INVALID_COMMAND', message: 'lines must not be empty' };
  if (cmd.lines.length > limits.maxLines) {
    return {
      code: 'INVENTORY.TOO_MANY_LINES',
      message: `${cmd.lines.length} lines, at most ${limits.maxLines}`,
    };
  }
  const seen = new Set<string>();
  for (const [i, line] of cmd.lines.entries()) {
    if (typeof line.product_id !== 'string' || !OBJECT_ID.test(line.product_id)) {
      return {
        code: 'INVENTORY.INVALID_COMMAND',
        message: `lines.${i}.product_id must be a 24-character hex ObjectId`,
      };
    }
    if (typeof line.qty !== 'number' || !Number.isInteger(line.qty) || line.qty <= 0) {
      return { code: 'INVENTORY.INVALID_COMMAND', message: `lines.${i}.qty must be a positive whole number` };
    }
    if (line.qty > limits.maxQtyPerLine) {
      return {
        code: 'INVENTORY.QTY_LIMIT_EXCEEDED',
        message: `lines.${i}.qty ${line.qty} exceeds the limit ${limits.maxQtyPerLine}`,
      };
    }
    const id = line.product_id.toLowerCase();
    if (seen.has(id))
      return {
        code: 'INVENTORY.INVALID_COMMAND',
        message: `lines.${i}.product_id repeats a product; send one line per product`,
      };
    seen.add(id);
  }
  if (
    typeof cmd.hold_seconds !== 'number' ||
    !Number.isInteger(cmd.hold_seconds) ||
    cmd.hold_seconds < 1 ||
    cmd.hold_seconds > CONTRACT_MAX_HOLD_SECONDS
  ) {
    return {
      code: 'INVENTORY.INVALID_COMMAND',
      message: 'hold_seconds must be a whole number of seconds in 1..86400',
    };
  }
  return null;
}

/** Lines in a stable order (by product id) so concurrent orders touch documents in the same order. */
export function normalizeLines(lines: readonly Line[]): Line[] {
  return lines
    .map((l) => ({ product_id: l.product_id.toLowerCase(), qty: l.qty }))
    .sort((a, b) => a.product_id.localeCompare(b.product_id));
}

export function newReservation(
  cmd: { order_id: string; zone: string; lines: readonly Line[] },
  expiresAt: Date,
  now: Date,
): ReservationDoc {
  return {
    _id: cmd.order_id.toLowerCase(),
    zone: cmd.zone,
    lines: normalizeLines(cmd.lines),
    status: 'reserving',
    expires_at: expiresAt,
    hold_ms: expiresAt.getTime() - now.getTime(),
    created_at: now,
    updated_at: now,
  };
}

/** The rejection code of a short reservation: an unknown product wins over plain shortage. */
export function rejectionCodeOf(shortages: readonly (Shortage & { unknown: boolean })[]): RejectionCode {
  return shortages.some((s) => s.unknown) ? 'INVENTORY.UNKNOWN_PRODUCT' : 'INVENTORY.INSUFFICIENT_STOCK';
}

export type CommitDecision =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'in-progress' }
  | { readonly kind: 'expire-then-fail' }
  | { readonly kind: 'fail'; readonly code: RejectionCode; readonly tombstone: boolean };

/** Why a CommitStock could not move a reservation to committed, and what to answer. */
export function decideFailedCommit(doc: ReservationDoc | null, now: Date): CommitDecision {
  if (!doc) return { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: true };
  switch (doc.status) {
    case 'committed':
    case 'returned': // sold once, then returned: the commit was answered then, nothing is sold again
      return { kind: 'duplicate' };
    case 'reserving':
      return { kind: 'in-progress' };
    case 'reserved':
      // The conditional commit failed although reserved: the hold is past its expiry.
      return doc.expires_at.getTime() <= now.getTime()
        ? { kind: 'expire-then-fail' }
        : { kind: 'in-progress' };
    case 'released':
      return { kind: 'fail', code: 'INVENTORY.RESERVATION_RELEASED', tombstone: false };
    case 'expired':
      return { kind: 'fail', code: 'INVENTORY.RESERVATION_EXPIRED', tombstone: false };
    case 'rejected':
      return { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: false };
  }
}

/** Ledger kind used when undoing the holds of an order in this status. */
export const undoKindOf = (status: ReservationStatus): 'expire' | 'release' =>
  status === 'expired' ? 'expire' : 'release';

/** Statuses whose holds must be returned to `available`. */
export const isClosedWithoutSale = (status: ReservationStatus): boolean =>
  status === 'rejected' || status === 'released' || status === 'expired';

/**
 * The expiry of a `reserving` order resumed after its processor stopped (the sweeper, or a
 * redelivered ReserveStock): a fresh hold of the length the command asked for, counted from the
 * resume — never an expiry already past. Documents older than `hold_ms` fall back to the span
 * between their claim and their first expiry.
 */
export function resumedExpiry(
  doc: Pick<ReservationDoc, 'expires_at' | 'created_at' | 'hold_ms'>,
  now: Date,
): Date {
  const holdMs = doc.hold_ms ?? Math.max(0, doc.expires_at.getTime() - doc.created_at.getTime());
  return new Date(now.getTime() + Math.max(1000, holdMs));
}

/**
 * Who owns a hold an order has on a stock document, judged by the order's reservation:
 *  - `live`: reserving or reserved — the hold is the order's, leave it;
 *  - `selling`: committed with the commit not yet applied — the hold is the sale, commit it (once);
 *  - `stray`: committed and already applied — a hold taken again after the sale; give it back, never sell it;
 *  - `closed`: rejected, released, expired or returned — give it back;
 *  - `unknown`: no reservation — give it back.
 */
export type HoldOwner = 'live' | 'selling' | 'stray' | 'closed' | 'unknown';

export function ownerOfHold(order: Pick<ReservationDoc, 'status' | 'pending'> | null | undefined): HoldOwner {
  if (!order) return 'unknown';
  switch (order.status) {
    case 'reserving':
    case 'reserved':
      return 'live';
    case 'committed':
      return order.pending === 'commit' ? 'selling' : 'stray';
    case 'rejected':
    case 'released':
    case 'expired':
    case 'returned':
      return 'closed';
  }
}

/**
 * How a stock document remembers an order whose hold it gives back: a stray hold of a sold order
 * as `committed`, one of a returned order as `returned`, otherwise what the undo kind says.
 */
export function settledAsOf(
  order: Pick<ReservationDoc, 'status' | 'pending'> | null | undefined,
): 'committed' | 'returned' | undefined {
  if (order?.status === 'returned') return 'returned';
  return ownerOfHold(order) === 'stray' ? 'committed' : undefined;
}
