import * as os from 'node:os';
import { Document, MongoClient } from 'mongodb';

/** How many operations of a kind each replica-set member served, from its own profiler. */
export interface MemberReads {
  readonly primary: number;
  readonly secondaries: number;
  readonly byMember: Readonly<Record<string, number>>;
}

/** One profiled operation that went through the query planner. */
export interface ProfiledOp {
  readonly member: string;
  readonly collection: string;
  readonly op: string;
  /** The filter's shape: field names and operators, values left out. */
  readonly shape: string;
  readonly planSummary: string;
  readonly hasSortStage: boolean;
  readonly docsExamined: number;
  /** Documents returned, matched (update) or deleted. */
  readonly returned: number;
}

export interface MemberProfiler {
  /** The member that was primary when profiling started. */
  readonly primary: string;
  /** Profiled operations on `collection` matching `filter` (e.g. `{ op: 'query' }`), per member. */
  count(collection: string, filter?: Document): Promise<MemberReads>;
  /** Every planned operation the members profiled so far (system collections left out). */
  operations(): Promise<ProfiledOp[]>;
  stop(): Promise<void>;
}

// runtimeAdapters: the driver's dynamic import('os') fails under Jest (libs/persistence/src/mongo-client.ts).
const connect = (url: string): Promise<MongoClient> =>
  new MongoClient(url, { runtimeAdapters: { os }, serverSelectionTimeoutMS: 10_000 }).connect();

/**
 * Turns on the profiler (level 2) of database `dbName` on every member of the replica set behind
 * `mongoUrl`, so a test can tell which member served a read: command monitoring inside the service
 * would need a hook in production code; the members' own profilers need none. Use a database of
 * the test's own, so nothing else is counted.
 */
export async function profileMembers(mongoUrl: string, dbName: string): Promise<MemberProfiler> {
  const set = await connect(mongoUrl);
  const hello = await set.db('admin').command({ hello: 1 });
  await set.close();
  const hosts = hello['hosts'] as string[];
  const primary = hello['primary'] as string;
  const members = await Promise.all(hosts.map(async (host) => ({ host, client: await connect(`mongodb://${host}/?directConnection=true`) })));
  await Promise.all(members.map((m) => m.client.db(dbName).command({ profile: 2 })));
  return {
    primary,
    async count(collection, filter = {}) {
      const byMember: Record<string, number> = {};
      for (const m of members) {
        byMember[m.host] = await m.client.db(dbName).collection('system.profile').countDocuments({ ns: `${dbName}.${collection}`, ...filter });
      }
      const secondaries = hosts.filter((h) => h !== primary).reduce((n, h) => n + (byMember[h] ?? 0), 0);
      return { primary: byMember[primary] ?? 0, secondaries, byMember };
    },
    async operations() {
      const out: ProfiledOp[] = [];
      for (const m of members) {
        const entries = await m.client.db(dbName).collection('system.profile').find({ planSummary: { $exists: true } }).toArray();
        for (const e of entries.filter((x) => !String(x['ns']).includes('.system.'))) {
          const command = (e['command'] ?? {}) as Document;
          // an aggregate (countDocuments among them) is identified by its leading $match
          const leadingMatch = (command['pipeline'] as Document[] | undefined)?.[0]?.['$match'] as Document | undefined;
          const filter = (command['filter'] ?? command['query'] ?? command['q'] ?? (command['updates'] as Document[] | undefined)?.[0]?.['q'] ?? leadingMatch ?? {}) as Document;
          out.push({
            member: m.host,
            collection: String(e['ns']).slice(dbName.length + 1),
            op: String(e['op']) === 'command' ? Object.keys(command)[0] ?? 'command' : String(e['op']),
            shape: JSON.stringify(shapeOf(filter)),
            planSummary: String(e['planSummary']),
            hasSortStage: e['hasSortStage'] === true,
            docsExamined: Number(e['docsExamined'] ?? 0),
            returned: Number(e['nreturned'] ?? e['nMatched'] ?? e['ndeleted'] ?? 0),
          });
        }
      }
      return out;
    },
    async stop() {
      await Promise.all(members.map((m) => m.client.db(dbName).command({ profile: 0 }).finally(() => m.client.close())));
    },
  };
}

/** `{ a: 1, b: { $lte: x } }` → `{ a: '?', b: { $lte: '?' } }`: what makes two queries the same shape. */
export function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.length && v.every((x) => x === null || typeof x !== 'object') ? ['?'] : v.map(shapeOf);
  if (v === null || typeof v !== 'object' || v instanceof Date || (v as { _bsontype?: string })._bsontype) return '?';
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shapeOf(x)]));
}

/**
 * The operations that are not served by an index the way a query shape must be: a collection scan,
 * a blocking (in-memory) sort, or more documents examined than returned (one more is allowed: a
 * conditional update that examined its document and did not match). One row per offending shape.
 */
export function unindexedShapes(ops: readonly ProfiledOp[]): string[] {
  const rows = new Set<string>();
  for (const o of ops) {
    const why = [
      o.planSummary.includes('COLLSCAN') ? 'COLLSCAN' : '',
      o.hasSortStage ? 'blocking SORT' : '',
      // an aggregation returns groups: it reads every document it matched by design
      o.op !== 'aggregate' && o.docsExamined > o.returned + 1 ? `examined ${o.docsExamined} for ${o.returned}` : '',
    ].filter(Boolean);
    if (why.length) rows.add(`${o.collection} ${o.op} ${o.shape} — ${why.join(', ')} (${o.planSummary})`.replace(/\d+/g, 'N'));
  }
  return [...rows];
}
