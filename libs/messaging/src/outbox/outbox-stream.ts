import { BSON, Db, Document, MongoServerError, ResumeToken } from 'mongodb';
import { OUTBOX_FIELD, OutboxEntry } from './outbox';
import { LEASES_COLLECTION } from './outbox-lease';

/**
 * Relay progress in 'stream' mode (ADR 0015 §2): instead of `$pull`ing what it sent, the relay
 * follows the change stream of its collections and stores, once per pass, how far it got — in its
 * lease document, under `progress`.
 */
export type RelayProgressMode = 'pull' | 'stream';

/** A document whose entries wait behind a parked one: `i` is the index of that entry in `_outbox`. */
export interface BlockedDoc {
  readonly c: string;
  readonly id: unknown;
  readonly i: number;
}

export interface StoredProgress {
  /** Where the next owner resumes the change stream. */
  readonly token: ResumeToken;
  /** When the pass that stored it read its batch: the recovery scan starts a margin before it. */
  readonly at: Date;
  /** Blocked documents as of `token` (restored with it, so a replay holds exactly what was held). */
  readonly blocked: readonly BlockedDoc[];
}

/** An entry a change added, with its index in the document's `_outbox`. */
export interface AddedEntry {
  readonly index: number;
  readonly entry: OutboxEntry;
}

/** What one change event did to a document's outbox. */
export interface OutboxChange {
  /** Entries written by the change, in index order (a parked one included: the caller blocks there). */
  readonly added: readonly AddedEntry[];
  /** Index whose `parked` mark was removed (`npm run outbox:parked --requeue`), when reported as a removal. */
  readonly unparkedAt?: number;
}

const ELEMENT = new RegExp(`^${OUTBOX_FIELD}\\.(\\d+)$`);
const PARKED_MARK = new RegExp(`^${OUTBOX_FIELD}\\.(\\d+)\\.parked$`);

/**
 * The outbox entries a change event wrote, as MongoDB 6.0 reports them (checked by experiment):
 * an insert or replace carries the whole document; `$push: {$each}` onto an existing array is
 * reported as one `_outbox.<n>` field per new element, onto a missing array (or any rewrite of the
 * whole array, e.g. a `$pull`) as `_outbox` itself; the relay's park mark as `_outbox.<n>.parked`
 * (ignored: not an entry), and the requeue's `$unset: {'_outbox.$[].parked'}` as the whole element
 * `_outbox.<n>` without its mark. Entries are never removed in 'stream' mode, so an index never
 * moves: an element reported at the index where a document is blocked is that entry requeued
 * (an addition lands past the parked entry).
 */
export function outboxChange(event: Document): OutboxChange {
  const added: AddedEntry[] = [];
  const op = event['operationType'];
  if (op === 'insert' || op === 'replace') {
    const all = (event['fullDocument']?.[OUTBOX_FIELD] ?? []) as OutboxEntry[];
    all.forEach((entry, index) => added.push({ index, entry }));
    return { added };
  }
  if (op !== 'update') return { added };
  const desc = (event['updateDescription'] ?? {}) as { updatedFields?: Document; removedFields?: string[] };
  for (const [field, value] of Object.entries(desc.updatedFields ?? {})) {
    if (field === OUTBOX_FIELD && Array.isArray(value))
      (value as OutboxEntry[]).forEach((entry, index) => added.push({ index, entry }));
    const m = ELEMENT.exec(field);
    if (m) added.push({ index: Number(m[1]), entry: value as OutboxEntry });
  }
  added.sort((a, b) => a.index - b.index);
  const unparked = (desc.removedFields ?? []).map((f) => PARKED_MARK.exec(f)).find((m) => m !== null);
  return unparked ? { added, unparkedAt: Number(unparked[1]) } : { added };
}

/** Key of a document in the relay's maps: collection and EJSON of its _id (an ObjectId and its hex string differ). */
export const docKey = (collection: string, id: unknown): string =>
  `${collection}\u0000${BSON.EJSON.stringify(id as Document, { relaxed: false })}`;

/**
 * Errors after which the stored token cannot be used: the oplog no longer holds it
 * (ChangeStreamHistoryLost), or it is not a token (InvalidResumeToken, FailedToParse, a fatal
 * stream error). The relay then falls back to the recovery scan.
 */
const TOKEN_LOST = new Set([286, 260, 9, 280]);
export const isTokenLost = (e: unknown): boolean =>
  e instanceof MongoServerError && typeof e.code === 'number' && TOKEN_LOST.has(e.code);

export async function loadProgress(db: Db, name: string): Promise<StoredProgress | undefined> {
  const doc = await db
    .collection<{ _id: string; progress?: StoredProgress }>(LEASES_COLLECTION)
    .findOne({ _id: name }, { projection: { progress: 1 } });
  return doc?.progress ?? undefined;
}

/**
 * Stores a pass's progress: one write to the lease document, filtered by owner and epoch, so a
 * relay that lost its lease (a newer owner took over) cannot move the progress. False then.
 */
export async function storeProgress(
  db: Db,
  name: string,
  owner: string,
  epoch: number,
  progress: StoredProgress,
): Promise<boolean> {
  const res = await db
    .collection<{ _id: string }>(LEASES_COLLECTION)
    .updateOne({ _id: name, owner, epoch }, { $set: { progress } });
  return res.matchedCount === 1;
}
