/**
 * Wiring for the operational scripts, without Nest DI (tsx drops decorator metadata):
 * repositories and services are constructed by hand from the validated config.
 */
import { Client } from 'cassandra-driver';
import { Db, MongoClient } from 'mongodb';
import pino, { Logger } from 'pino';
import { connectCassandra, createMongoClient } from '@mw/persistence';
import { CatalogConfig, loadCatalogConfig } from '../src/config';
import { ProductDoc } from '../src/shared/catalog-db';
import { cassandraOptions } from '../src/shared/cassandra-options';
import { SourceProduct } from '../src/projection/anti-entropy';

export interface ScriptContext {
  readonly config: Readonly<CatalogConfig>;
  readonly logger: Logger;
  readonly mongo: MongoClient;
  readonly db: Db;
  cassandra(): Promise<Client>;
  close(): Promise<void>;
}

export async function scriptContext(name: string): Promise<ScriptContext> {
  const config = loadCatalogConfig();
  const logger = pino({ name, level: config.LOG_LEVEL });
  const mongo = await createMongoClient(config.MONGO_URL, {
    appName: `catalog-${name}`,
    serverSelectionTimeoutMS: 5000,
  }).connect();
  let cass: Client | undefined;
  return {
    config,
    logger,
    mongo,
    db: mongo.db(config.MONGO_DB),
    cassandra: async () => (cass ??= await connectCassandra(cassandraOptions(config))),
    close: async () => {
      await mongo.close();
      await cass?.shutdown();
    },
  };
}

export function sourceOf(d: ProductDoc): SourceProduct {
  return {
    product_id: d._id.toHexString(),
    version: d.version,
    name: d.name,
    category_id: d.category_id.toHexString(),
    ancestors: d.ancestors.map((a) => a.toHexString()),
    price: d.price,
    currency: d.currency,
    attributes: d.attributes,
    ...(d.pricing ? { pricing: d.pricing } : {}),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    deleted: d.deleted_at != null,
  };
}

export function fail(e: unknown): never {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
