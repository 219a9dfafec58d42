import type { Saga, TransitionRecord } from '../saga/saga';

/** The parts of an order update that change its saga: dotted `$set`s, `$unset`s and the history records to append. */
export interface SagaChanges {
  readonly set: Readonly<Record<string, unknown>>;
  readonly unset: readonly string[];
  /** Appended with `$push … $each` when the history only grew; otherwise the history is in `set`. */
  readonly appended: readonly TransitionRecord[];
}

/**
 * What a transition writes of its saga (issue 31, ADR 0015 "Measured on ca76f0f"): only the fields that changed, and the
 * new history records appended — not the whole saga, whose history grows with every step and whose
 * copy each update used to put in the oplog, to every member. The version guard of the update makes
 * `before` exactly what is stored at that version, except `payment.next_at` / `attempts`, which a
 * payment claim moves without a new version: when the transition leaves `payment` as it was read,
 * the claim's lease is kept (the whole-saga `$set` wound it back to the read value).
 */
export function sagaChanges(before: Saga, after: Saga): SagaChanges {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)] as (keyof Saga)[]);
  keys.delete('history');
  for (const key of keys) {
    const next = after[key];
    if (next === undefined) {
      if (before[key] !== undefined) unset.push(`saga.${key}`);
    } else if (!same(before[key], next)) set[`saga.${key}`] = next;
  }
  const kept = before.history.length;
  const grew = after.history.length >= kept && after.history.slice(0, kept).every((h, i) => h === before.history[i] || same(h, before.history[i]));
  if (!grew) return { set: { ...set, 'saga.history': after.history }, unset, appended: [] };
  return { set, unset, appended: after.history.slice(kept) };
}

/**
 * Equal as values: dates by their instant, arrays and plain objects member by member (a member
 * holding undefined equals an absent one). Not `isDeepStrictEqual`: it also compares prototypes, and
 * a date read by the driver need not share the planner's `Date`. A false "changed" costs only a
 * redundant `$set` of that field.
 */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isDate(a) || isDate(b)) return isDate(a) && isDate(b) && a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!same(ra[k], rb[k])) return false;
  return true;
}

const isDate = (x: unknown): x is Date => Object.prototype.toString.call(x) === '[object Date]';
