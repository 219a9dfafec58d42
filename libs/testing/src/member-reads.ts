import * as os from 'node:os';
import { Document, MongoClient } from 'mongodb';

/** How many operations of a kind each replica-set member served, from its own profiler. */
export interface MemberReads {
  readonly primary: number;
  readonly secondaries: number;
  readonly byMember: Readonly<Record<string, number>>;
}

export interface MemberProfiler {
  /** Profiled operations on `collection` matching `filter` (e.g. `{ op: 'query' }`), per member. */
  count(collection: string, filter?: Document): Promise<MemberReads>;
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
    async count(collection, filter = {}) {
      const byMember: Record<string, number> = {};
      for (const m of members) {
        byMember[m.host] = await m.client.db(dbName).collection('system.profile').countDocuments({ ns: `${dbName}.${collection}`, ...filter });
      }
      const secondaries = hosts.filter((h) => h !== primary).reduce((n, h) => n + (byMember[h] ?? 0), 0);
      return { primary: byMember[primary] ?? 0, secondaries, byMember };
    },
    async stop() {
      await Promise.all(members.map((m) => m.client.db(dbName).command({ profile: 0 }).finally(() => m.client.close())));
    },
  };
}
