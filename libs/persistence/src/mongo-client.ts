import * as os from 'node:os';
import { MongoBulkWriteError, MongoClient, MongoServerError, ReadPreference, type Collection, type Document, type MongoClientOptions, type ReadPreferenceMode } from 'mongodb';

/**
 * Every MongoClient of the project is made here. The driver (7.6+) loads `os` with a dynamic
 * `import()`, which Jest's CommonJS sandbox cannot run: the handshake then carries no client
 * metadata and mongod refuses the connection ("Missing required sub-document 'driver' in the
 * client metadata document"). Handing the module to the driver works in every runtime.
 */
export function createMongoClient(url: string, options: MongoClientOptions = {}): MongoClient {
  return new MongoClient(url, { runtimeAdapters: { os }, ...options });
}

/**
 * Read preference of a read that tolerates lag (catalog search, order history — seed 001 §5):
 * a secondary no further behind the primary than `maxStalenessSeconds` (90 s is the driver's
 * minimum), else the primary. Decision reads never use this: they pass `ReadPreference.primary`.
 */
export function lagTolerantRead(mode: ReadPreferenceMode, maxStalenessSeconds: number): ReadPreference {
  return mode === 'primary' ? ReadPreference.primary : new ReadPreference(mode, undefined, { maxStalenessSeconds });
}

/** Drops an index an earlier version created; absent (code 27, IndexNotFound) is fine. */
export async function dropIndexIfPresent<T extends Document>(coll: Collection<T>, name: string): Promise<void> {
  try {
    await coll.dropIndex(name);
  } catch (e) {
    if (!(e instanceof MongoServerError && (e.code === 27 || e.code === 26))) throw e; // 26: no collection yet
  }
}

/**
 * Whether a failed unordered insert failed only because some documents already existed: at least
 * one write error, every one a duplicate key (11000), and no write concern error. A bulk error with
 * no write errors is a write concern failure (e.g. the primary stepped down before a majority had
 * the inserts): those inserts may still be rolled back, so it must never pass as "already there".
 */
export function duplicateKeysOnly(e: unknown): e is MongoBulkWriteError {
  if (!(e instanceof MongoBulkWriteError)) return false;
  const errors = [e.writeErrors].flat();
  const concern = e.result?.getWriteConcernError?.();
  return errors.length > 0 && errors.every((w) => w.code === 11000) && !concern;
}

/**
 * The indexes of the operations of a failed unordered bulk that lost to an existing `_id` (a guard
 * lost, a duplicate insert): the error is raised again unless it failed for duplicate keys only
 * (`duplicateKeysOnly`), so a write concern failure or any other error never passes as a lost race.
 */
export function duplicateKeyIndexes(e: unknown): number[] {
  if (!duplicateKeysOnly(e)) throw e;
  return [e.writeErrors].flat().map((w) => w.index);
}
