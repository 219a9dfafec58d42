import { Inject, Injectable } from '@nestjs/common';
import { Collection, Db, Document, ObjectId, ReadPreference } from 'mongodb';
import { MONGO_DB, lagTolerantRead } from '@mw/persistence';
import { PRODUCTS, ProductDoc } from '../shared/catalog-db';
import { CATALOG_CONFIG } from '../shared/tokens';
import type { CatalogConfig } from '../config';
import { MongoSearch, Value } from './search-query';

/**
 * Runs search queries; mongod's planner picks the index each shape was built for (the explain
 * test proves it, ADR 0031). Reads may go to secondaries (seed 001 §5: catalog search tolerates lag). */
@Injectable()
export class SearchRepository {
  private readonly coll: Collection<ProductDoc>;
  private readonly readPreference: ReadPreference;

  constructor(
    @Inject(MONGO_DB) db: Db,
    @Inject(CATALOG_CONFIG) config: Pick<CatalogConfig, 'CATALOG_READ_PREFERENCE' | 'CATALOG_MAX_STALENESS_SECONDS'>,
  ) {
    this.coll = db.collection<ProductDoc>(PRODUCTS);
    this.readPreference = lagTolerantRead(config.CATALOG_READ_PREFERENCE, config.CATALOG_MAX_STALENESS_SECONDS);
  }

  async find(q: MongoSearch): Promise<ProductDoc[]> {
    return this.coll
      .find(toDriver(q.filter) as Document, {
        readPreference: this.readPreference,
        projection: { _outbox: 0 },
      })
      .sort(q.sort)
      .limit(q.limit)
      .toArray();
  }

  async explain(q: MongoSearch, verbosity: 'queryPlanner' | 'executionStats' = 'queryPlanner'): Promise<Document> {
    return this.coll
      .find(toDriver(q.filter) as Document)
      .sort(q.sort)
      .limit(q.limit)
      .explain(verbosity);
  }
}

/** Turns the builder's {$oid} / {$date} references into driver values. */
export function toDriver(v: Value): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x: Value) => toDriver(x));
  const o = v as Record<string, Value>;
  if (typeof o['$oid'] === 'string') return new ObjectId(o['$oid']);
  if (typeof o['$date'] === 'number') return new Date(o['$date']);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, toDriver(x)]));
}
