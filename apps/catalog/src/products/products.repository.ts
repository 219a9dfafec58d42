import { Inject, Injectable } from '@nestjs/common';
import { Collection, Db, Document, FindCursor, ObjectId } from 'mongodb';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush } from '@mw/messaging';
import { MONGO_DB } from '@mw/persistence';
import { LIVE, PRODUCTS, ProductDoc } from '../shared/catalog-db';
import { Product } from './product';
import { toFields, toProduct } from './product.mapper';

/** Products in MongoDB. A change and its event are one atomic single-document update (outbox). */
@Injectable()
export class ProductsRepository {
  readonly coll: Collection<ProductDoc>;

  constructor(@Inject(MONGO_DB) db: Db) {
    this.coll = db.collection<ProductDoc>(PRODUCTS);
  }

  /** false when a document with this id already exists (idempotent seed). */
  async insert(p: Product, events: readonly OutgoingMessage[]): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: new ObjectId(p.id) },
      { $setOnInsert: { ...toFields(p), _outbox: outboxPush(events).$push._outbox.$each } },
      { upsert: true },
    );
    return res.upsertedCount === 1;
  }

  /** Bulk variant of insert (one round trip per call); returns how many were new. */
  async insertMany(
    items: readonly { product: Product; events: readonly OutgoingMessage[] }[],
  ): Promise<number> {
    if (items.length === 0) return 0;
    const res = await this.coll.bulkWrite(
      items.map(({ product, events }) => ({
        updateOne: {
          filter: { _id: new ObjectId(product.id) },
          update: { $setOnInsert: { ...toFields(product), _outbox: outboxPush(events).$push._outbox.$each } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    return res.upsertedCount;
  }

  async findById(id: string): Promise<Product | null> {
    const doc = await this.coll.findOne({ _id: new ObjectId(id), ...LIVE }, { projection: { _outbox: 0 } });
    return doc ? toProduct(doc) : null;
  }

  /** Replaces the product if it is still at `expectedVersion`; false if it changed meanwhile. */
  async replace(
    next: Product,
    expectedVersion: number,
    events: readonly OutgoingMessage[],
  ): Promise<boolean> {
    const { created_at: _created, ...fields } = toFields(next);
    const unset: Document = next.pricing ? {} : { $unset: { pricing: '' } };
    const res = await this.coll.updateOne(
      { _id: new ObjectId(next.id), version: expectedVersion, ...LIVE },
      { $set: fields, ...unset, ...outboxPush(events, next.updated_at) },
    );
    return res.modifiedCount === 1;
  }

  async markDeleted(
    p: Product,
    version: number,
    now: Date,
    events: readonly OutgoingMessage[],
  ): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: new ObjectId(p.id), version: p.version, ...LIVE },
      { $set: { deleted_at: now, updated_at: now, version }, ...outboxPush(events, now) },
    );
    return res.modifiedCount === 1;
  }

  async countInCategory(categoryId: string): Promise<number> {
    return this.coll.countDocuments({ category_id: new ObjectId(categoryId), ...LIVE });
  }

  /** Live products whose category is one of `categoryIds` (for re-ancestry after a tree move). */
  inCategories(categoryIds: readonly string[]): FindCursor<ProductDoc> {
    return this.coll.find(
      { category_id: { $in: categoryIds.map((c) => new ObjectId(c)) }, ...LIVE },
      { projection: { _outbox: 0 } },
    );
  }

  /** Every product document including tombstones (rebuild/verify), in _id order. */
  all(): FindCursor<ProductDoc> {
    return this.coll.find({}, { projection: { _outbox: 0 } }).sort({ _id: 1 });
  }
}
