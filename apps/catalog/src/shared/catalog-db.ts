import { Db, Document, IndexDescription, MongoServerError, ObjectId } from 'mongodb';
import type { Logger } from 'pino';
import { OutboxRelay, WithOutbox } from '@mw/messaging';
import { CATEGORY_MOVES, moveIndexes } from '../categories/category-moves.repository';

export const CATEGORIES = 'categories';
export const PRODUCTS = 'products';
export const OUTBOX_COLLECTIONS = [CATEGORIES, PRODUCTS] as const;

export interface AncestorDoc {
  _id: ObjectId;
  slug: string;
  name: string;
}

export interface CategoryDoc extends WithOutbox {
  _id: ObjectId;
  slug: string;
  name: string;
  parent: ObjectId | null;
  /** Root first, parent last (seed 004). */
  ancestors: AncestorDoc[];
  version: number;
  created_at: Date;
  updated_at: Date;
  /** Tombstone: kept until its CategoryDeleted event is relayed; the slug is freed. */
  deleted_at?: Date | null;
}

export interface PricingDoc {
  list: number;
  retail: number;
  pct_savings: number;
}

export interface ProductDoc extends WithOutbox {
  _id: ObjectId;
  name: string;
  category_id: ObjectId;
  /** The category's ancestor ids, root first, the category itself last (multikey index). */
  ancestors: ObjectId[];
  /** Kopecks. */
  price: number;
  currency: 'RUB';
  attributes: Record<string, string>;
  pricing?: PricingDoc;
  /** pricing.pct_savings or 0: a dense field for the "biggest discount" sort. */
  discount_pct: number;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** Tombstone: the document stays (it carries the ProductDeleted outbox entry and lets rebuild delete read rows). */
  deleted_at?: Date | null;
}

/** Live documents only (tombstones have deleted_at). Matches a missing field. */
export const LIVE = { deleted_at: null } as const;

/** Seed 001's products schema, adapted: minor units, category ids, ancestry, version. */
export const productValidator: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: [
      'name',
      'category_id',
      'ancestors',
      'price',
      'currency',
      'attributes',
      'version',
      'created_at',
      'updated_at',
    ],
    properties: {
      _id: { bsonType: 'objectId' },
      name: { bsonType: 'string', minLength: 1, maxLength: 300 },
      category_id: { bsonType: 'objectId' },
      ancestors: { bsonType: 'array', maxItems: 32, items: { bsonType: 'objectId' } },
      price: { bsonType: ['int', 'long', 'double'], minimum: 0, description: 'kopecks' },
      currency: { enum: ['RUB'] },
      attributes: { bsonType: 'object', maxProperties: 50 },
      discount_pct: { bsonType: ['int', 'long', 'double'], minimum: 0, maximum: 100 },
      version: { bsonType: ['int', 'long', 'double'], minimum: 1 },
      created_at: { bsonType: 'date' },
      updated_at: { bsonType: 'date' },
    },
  },
};

export const categoryValidator: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['slug', 'name', 'ancestors', 'version'],
    properties: {
      slug: { bsonType: 'string', minLength: 1, maxLength: 140 },
      name: { bsonType: 'string', minLength: 1, maxLength: 200 },
      parent: { bsonType: ['objectId', 'null'] },
      ancestors: { bsonType: 'array', maxItems: 32 },
      version: { bsonType: ['int', 'long', 'double'], minimum: 1 },
    },
  },
};

/**
 * Indexes per query shape (search sorts end in _id so cursor pagination is an index walk):
 * category + sort, ancestors (multikey) + sort, and the sort alone.
 */
export const productIndexes: IndexDescription[] = [
  { key: { category_id: 1, price: 1, _id: 1 }, name: 'category_price' },
  { key: { ancestors: 1, price: 1, _id: 1 }, name: 'ancestors_price' },
  { key: { price: 1, _id: 1 }, name: 'price' },
  { key: { category_id: 1, created_at: -1, _id: -1 }, name: 'category_newest' },
  { key: { ancestors: 1, created_at: -1, _id: -1 }, name: 'ancestors_newest' },
  { key: { created_at: -1, _id: -1 }, name: 'newest' },
  { key: { category_id: 1, discount_pct: -1, _id: -1 }, name: 'category_discount' },
  { key: { ancestors: 1, discount_pct: -1, _id: -1 }, name: 'ancestors_discount' },
  { key: { discount_pct: -1, _id: -1 }, name: 'discount' },
];

export const categoryIndexes: IndexDescription[] = [
  { key: { slug: 1 }, name: 'slug_unique', unique: true },
  { key: { parent: 1 }, name: 'parent' },
  { key: { 'ancestors._id': 1 }, name: 'ancestors_id' },
];

/** Collections with validators, indexes and outbox indexes. Idempotent. */
export async function ensureCatalogSchema(db: Db, logger?: Logger): Promise<void> {
  await ensureCollection(db, CATEGORIES, categoryValidator, logger);
  await ensureCollection(db, PRODUCTS, productValidator, logger);
  await db.collection(CATEGORIES).createIndexes(categoryIndexes);
  await db.collection(PRODUCTS).createIndexes(productIndexes);
  await OutboxRelay.ensureIndexes(db, OUTBOX_COLLECTIONS);
  await db.collection(CATEGORY_MOVES).createIndexes(moveIndexes);
}

async function ensureCollection(db: Db, name: string, validator: Document, logger?: Logger): Promise<void> {
  const exists = (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
  try {
    if (!exists)
      await db.createCollection(name, { validator, validationLevel: 'strict', validationAction: 'error' });
    else await db.command({ collMod: name, validator, validationLevel: 'strict', validationAction: 'error' });
  } catch (e) {
    if (e instanceof MongoServerError && e.code === 48) return; // created concurrently by another instance
    // A server without validators still gets validation in the service (ADR 0031).
    logger?.warn({ collection: name, err: (e as Error).message }, 'collection validator not applied');
    if (!exists) await db.createCollection(name).catch(() => undefined);
  }
}
