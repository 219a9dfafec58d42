import { type Document, type MongoClient, Timestamp } from 'mongodb';

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

/** The namespaces of `dbs` (any collection). */
const namespacesOf = (dbs: readonly string[]): RegExp =>
  new RegExp(`^(${dbs.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\.`);

/** Oplog entries in (from, to] that write to `dbs`: their own, or a transaction's `applyOps` with one of theirs. */
function writesTo(dbs: readonly string[], from: Timestamp, to: Timestamp): Document {
  const ns = namespacesOf(dbs);
  return { ts: { $gt: from, $lte: to }, $or: [{ ns }, { ns: 'admin.$cmd', 'o.applyOps.ns': ns }] };
}

/** Oplog operations and their BSON bytes per `<db label>.<collection> <op>` (op: i insert, u update, d delete). */
export type OplogByCollection = Record<string, OplogCount>;

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
  const [r] = await mongo
    .db('local')
    .collection('oplog.rs')
    .aggregate<{ entries: number; bytes: number }>([
      { $match: writesTo(dbs, from, to) },
      { $group: { _id: null, entries: { $sum: 1 }, bytes: { $sum: { $bsonSize: '$$ROOT' } } } },
    ])
    .toArray();
  return { entries: r?.entries ?? 0, bytes: r?.bytes ?? 0 };
}

/**
 * Where the bytes of {@link oplogBetween} go: each write in (from, to] to `dbs` (a label per database
 * name) by collection and operation, a transaction's operations counted one by one (their sizes
 * inside the `applyOps` entry; the entry's own envelope is not counted here). Which documents are
 * large and which writes carry whole arrays shows here, not in the total.
 */
export async function oplogByCollection(
  mongo: MongoClient,
  from: Timestamp,
  to: Timestamp,
  dbs: Readonly<Record<string, string>>,
): Promise<OplogByCollection> {
  const names = Object.keys(dbs);
  const ns = namespacesOf(names);
  const rows = await mongo
    .db('local')
    .collection('oplog.rs')
    .aggregate<{ _id: { ns: string; op: string }; entries: number; bytes: number }>([
      { $match: writesTo(names, from, to) },
      {
        $project: {
          ops: {
            $cond: [
              { $eq: ['$ns', 'admin.$cmd'] },
              { $map: { input: '$o.applyOps', as: 'a', in: { ns: '$$a.ns', op: '$$a.op', bytes: { $bsonSize: '$$a' } } } },
              [{ ns: '$ns', op: '$op', bytes: { $bsonSize: '$$ROOT' } }],
            ],
          },
        },
      },
      { $unwind: '$ops' },
      { $match: { 'ops.ns': ns } },
      { $group: { _id: { ns: '$ops.ns', op: '$ops.op' }, entries: { $sum: 1 }, bytes: { $sum: '$ops.bytes' } } },
    ])
    .toArray();
  const out: Record<string, OplogCount> = {};
  for (const r of rows.sort((a, b) => b.bytes - a.bytes)) {
    const db = names.find((n) => r._id.ns.startsWith(`${n}.`))!;
    out[`${dbs[db]}.${r._id.ns.slice(db.length + 1)} ${r._id.op}`] = { entries: r.entries, bytes: r.bytes };
  }
  return out;
}

/** {@link oplogByCollection} per checkout. */
export function byCollectionPerCheckout(c: OplogByCollection, checkouts: number): OplogByCollection {
  return Object.fromEntries(Object.entries(c).map(([k, v]) => [k, perCheckoutOf(v, checkouts)]));
}

export function perCheckoutOf(c: OplogCount, checkouts: number): { entries: number; bytes: number } {
  const n = Math.max(1, checkouts);
  return { entries: Number((c.entries / n).toFixed(1)), bytes: Math.round(c.bytes / n) };
}
