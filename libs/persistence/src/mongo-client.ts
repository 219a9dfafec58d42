import * as os from 'node:os';
import { MongoClient, type MongoClientOptions } from 'mongodb';

/**
 * Every MongoClient of the project is made here. The driver (7.6+) loads `os` with a dynamic
 * `import()`, which Jest's CommonJS sandbox cannot run: the handshake then carries no client
 * metadata and mongod refuses the connection ("Missing required sub-document 'driver' in the
 * client metadata document"). Handing the module to the driver works in every runtime.
 */
export function createMongoClient(url: string, options: MongoClientOptions = {}): MongoClient {
  return new MongoClient(url, { runtimeAdapters: { os }, ...options });
}
