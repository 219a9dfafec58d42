import { Inject, Injectable } from '@nestjs/common';
import { Collection, Db, Document, ObjectId, ReadPreference, ReadPreferenceMode } from 'mongodb';
import { MONGO_DB } from '@mw/persistence';
import { PRODUCTS, ProductDoc } from '../shared/catalog-db';
import { CATALOG_CONFIG } from '../shared/tokens';
import type { CatalogConfig } from '../config';
import { MongoSearch, Value } from './search-query';

/**
 * Runs search queries with the index the shape was built for as a hint: SecantusDB's planner
 * picks a collection scan for an equality on a low-selectivity field (ADR 0031).
 * Reads may go to secondaries (seed 001 §5: catalog search tolerates lag). */
@Injectable()
export class SearchRepository {
  private readonly coll: Collection<ProductDoc>;
  private readonly readPreference: ReadPreference;

  constructor(
    @Inject(MONGO_DB) db: Db,
    @Inject(CATALOG_CONFIG) config: Pick<CatalogConfig, 'CATALOG_READ_PREFERENCE'>,
  ) {
    this.coll = db.collection<ProductDoc>(PRODUCTS);
    this.readPreference = ReadPreference.fromString(config.CATALOG_READ_PREFERENCE as ReadPreferenceMode);
  }

  async find(q: MongoSearch): Promise<ProductDoc[]> {
    return this.coll
      .find(toDriver(q.filter) as Document, {
        readPreference: this.readPreference,
        projection: { _outbox: 0 },
      })
      .hint(q.index)
      .sort(q.sort)
      .limit(q.limit)
      .toArray();
  }

  async explain(q: MongoSearch): Promise<Document> {
    return this.coll
      .find(toDriver(q.filter) as Document)
      .hint(q.index)
      .sort(q.sort)
      .limit(q.limit)
      .explain('queryPlanner');
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
