import { type MongoClient, Timestamp } from 'mongodb';

/** The newest oplog entry's time: where a window of writes starts or ends. */
export async function oplogEnd(mongo: MongoClient): Promise<Timestamp> {
  const last = await mongo
    .db('local')
    .collection<{ ts: Timestamp }>('oplog.rs')
    .find({}, { projection: { ts: 1 } })
    .sort({ $natural: -1 })
    .limit(1)
    .next();
  return last?.ts ?? new Timestamp({ t: 0, i: 0 });
}

export interface OplogCount {
  readonly entries: number;
  readonly bytes: number;
}

/**
 * The oplog entries in (from, to] that write to `dbs` — each one a document the secondaries fetch
 * and apply — and their BSON bytes. A transaction is one `applyOps` entry of `admin.$cmd`, counted
 * when one of its operations writes to `dbs`.
 */
export async function oplogBetween(
  mongo: MongoClient,
  from: Timestamp,
  to: Timestamp,
  dbs: readonly string[],
): Promise<OplogCount> {
  const ns = new RegExp(`^(${dbs.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\.`);
  const [r] = await mongo
    .db('local')
    .collection('oplog.rs')
    .aggregate<{ entries: number; bytes: number }>([
      { $match: { ts: { $gt: from, $lte: to }, $or: [{ ns }, { ns: 'admin.$cmd', 'o.applyOps.ns': ns }] } },
      { $group: { _id: null, entries: { $sum: 1 }, bytes: { $sum: { $bsonSize: '$$ROOT' } } } },
    ])
    .toArray();
  return { entries: r?.entries ?? 0, bytes: r?.bytes ?? 0 };
}

export function perCheckoutOf(c: OplogCount, checkouts: number): { entries: number; bytes: number } {
  const n = Math.max(1, checkouts);
  return { entries: Number((c.entries / n).toFixed(1)), bytes: Math.round(c.bytes / n) };
}
