import { Db, Document } from 'mongodb';
import { OUTBOX_FIELD, OutboxEntry, ParkedMark } from './outbox';

export interface ParkedDocument {
  readonly collection: string;
  readonly _id: unknown;
  /** The parked entry, then the entries waiting behind it. */
  readonly entries: readonly (Pick<OutboxEntry, 'id' | 'topic' | 'key' | 'created_at'> & { parked?: ParkedMark })[];
}

/** Documents whose outbox waits behind a parked entry (the relay's `outbox_parked` index). */
export async function listParked(db: Db, collections: readonly string[], limit = 100): Promise<ParkedDocument[]> {
  const out: ParkedDocument[] = [];
  for (const collection of collections) {
    const docs = await db
      .collection(collection)
      .find({ [`${OUTBOX_FIELD}.parked.at`]: { $exists: true } }, { projection: { [`${OUTBOX_FIELD}.envelope`]: 0 } })
      .limit(limit)
      .toArray();
    for (const d of docs) {
      const entries = (d[OUTBOX_FIELD] ?? []) as ParkedDocument['entries'];
      // from the parked entry on: with 'stream' progress the entries sent before it stay in the document
      out.push({ collection, _id: d._id, entries: entries.slice(Math.max(0, entries.findIndex((e) => e.parked !== undefined))) });
    }
  }
  return out;
}

/**
 * Lets the relay try parked entries again once the cause is fixed (topic created, limit raised):
 * every document, or only `ids`. An entry that still cannot be published is parked again.
 */
export async function requeueParked(db: Db, collections: readonly string[], ids?: readonly unknown[]): Promise<number> {
  let n = 0;
  for (const collection of collections) {
    const filter: Document = { [`${OUTBOX_FIELD}.parked.at`]: { $exists: true }, ...(ids ? { _id: { $in: ids } } : {}) };
    const res = await db.collection(collection).updateMany(filter, { $unset: { [`${OUTBOX_FIELD}.$[].parked`]: '' } });
    n += res.modifiedCount;
  }
  return n;
}
