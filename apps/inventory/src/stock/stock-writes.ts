/**
 * Preconditions of the stock writes a person makes over HTTP (pure rules, ADR 0040):
 * - a restock carries an `Idempotency-Key`: the stock document remembers the latest keys with the
 *   request and the level it answered, so a retried restock (client, proxy) answers that level again
 *   and adds nothing, and the same key with another request is refused;
 * - a stock-take carries `If-Match` with the version it was counted against (the stock document's
 *   `version`, served as a strong ETag): any change since — a sale, a reservation, another count —
 *   makes it a 412 instead of an overwrite with an old count.
 */

/** An opaque client token, as for checkout (carts): anything else is refused rather than stored. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** A strong ETag of a stock document: its version in quotes (`"9"`; `"0"`: never stocked). */
export const STOCK_ETAG = /^"(0|[1-9]\d{0,14})"$/;

/** How many restock keys a stock document remembers (the newest; an older key counts as new). */
export const RESTOCK_KEYS_KEPT = 100;

export const etagOf = (version: number): string => `"${version}"`;

/** The version an If-Match names (validated against STOCK_ETAG at the edge). */
export function versionOf(etag: string): number {
  const m = STOCK_ETAG.exec(etag);
  if (!m?.[1]) throw new Error(`not a stock ETag: ${etag}`);
  return Number(m[1]);
}

/** Who changed the stock: the token's subject and the role they acted in. */
export interface StockActor {
  readonly sub: string;
  readonly role: string;
}

/** The counters a restock answered with (the first answer, repeated to a retry). */
export interface AnsweredLevel {
  readonly available: number;
  readonly reserved: number;
  readonly committed: number;
  readonly version: number;
}

/** A remembered restock: its key, what was asked, by whom, and what it answered. */
export interface RestockKey {
  readonly key: string;
  readonly qty: number;
  readonly reason: string;
  readonly by?: StockActor;
  readonly at: Date;
  readonly level: AnsweredLevel;
}

export type RestockReplay =
  | { readonly kind: 'new' }
  /** The same request again: answer what the first one answered. */
  | { readonly kind: 'replay'; readonly first: RestockKey }
  /** The key was used for another request: refused, nothing added. */
  | { readonly kind: 'reused'; readonly first: RestockKey };

/** Whether a restock with this key was already made here, and whether it was the same request. */
export function restockReplay(
  kept: readonly RestockKey[] | undefined,
  key: string,
  request: { readonly qty: number; readonly reason: string },
): RestockReplay {
  const first = kept?.find((k) => k.key === key);
  if (!first) return { kind: 'new' };
  return first.qty === request.qty && first.reason === request.reason
    ? { kind: 'replay', first }
    : { kind: 'reused', first };
}

export type StockTake =
  /** The count was made against the current version: set `available`, moving it by `delta`. */
  | { readonly kind: 'apply'; readonly delta: number }
  /** The stock changed since the version the count was made against. */
  | { readonly kind: 'stale'; readonly current: number };

/**
 * A stock-take of `target` units counted against `expected` (If-Match) on a document now at
 * `current` (version 0 and available 0 when it does not exist).
 */
export function decideStockTake(
  current: { readonly version: number; readonly available: number },
  expected: number,
  target: number,
): StockTake {
  if (current.version !== expected) return { kind: 'stale', current: current.version };
  return { kind: 'apply', delta: target - current.available };
}
