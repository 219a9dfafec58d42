import { Inject, Injectable } from '@nestjs/common';
import { Collection, Db, MongoServerError, ObjectId } from 'mongodb';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush } from '@mw/messaging';
import { MONGO_DB } from '@mw/persistence';
import { CatalogErrors } from '../shared/errors';
import { CATEGORIES, CategoryDoc, LIVE } from '../shared/catalog-db';
import { AncestorRef, Category } from './category';
import { toAncestorDocs, toCategory } from './category.mapper';
import { MoveJournal } from './category-moves.repository';

export interface NewCategory {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly parent_id: string | null;
  readonly ancestors: readonly AncestorRef[];
}

/** Categories in MongoDB. Every state change and its event are one single-document update. */
@Injectable()
export class CategoriesRepository {
  private readonly coll: Collection<CategoryDoc>;
  /** The move journal lives beside the tree it guards. */
  readonly moves: MoveJournal;

  constructor(@Inject(MONGO_DB) db: Db) {
    this.coll = db.collection<CategoryDoc>(CATEGORIES);
    this.moves = new MoveJournal(db);
  }

  async insert(c: NewCategory, events: readonly OutgoingMessage[], now: Date): Promise<void> {
    const doc: CategoryDoc = {
      _id: new ObjectId(c.id),
      slug: c.slug,
      name: c.name,
      parent: c.parent_id ? new ObjectId(c.parent_id) : null,
      ancestors: toAncestorDocs(c.ancestors),
      version: 1,
      created_at: now,
      updated_at: now,
      _outbox: outboxPush(events, now).$push._outbox.$each,
    };
    try {
      await this.coll.insertOne(doc);
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) throw CatalogErrors.duplicateSlug(c.slug);
      throw e;
    }
  }

  async findBySlug(slug: string): Promise<Category | null> {
    const doc = await this.coll.findOne({ slug, ...LIVE });
    return doc ? toCategory(doc) : null;
  }

  async findById(id: string): Promise<Category | null> {
    const doc = await this.coll.findOne({ _id: new ObjectId(id), ...LIVE });
    return doc ? toCategory(doc) : null;
  }

  async findAll(): Promise<Category[]> {
    return (await this.coll.find({ ...LIVE }).toArray()).map(toCategory);
  }

  /** Every category below `id` (multikey index on ancestors._id). */
  async findDescendants(id: string): Promise<Category[]> {
    return (await this.coll.find({ 'ancestors._id': new ObjectId(id), ...LIVE }).toArray()).map(toCategory);
  }

  async hasChildren(id: string): Promise<boolean> {
    return (await this.coll.countDocuments({ parent: new ObjectId(id), ...LIVE }, { limit: 1 })) > 0;
  }

  /** Version-guarded change of the category's own fields with its events. */
  async update(
    c: Category,
    set: Partial<Pick<CategoryDoc, 'name' | 'parent' | 'ancestors'>>,
    events: readonly OutgoingMessage[],
    now: Date,
  ): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: new ObjectId(c.id), version: c.version, ...LIVE },
      { $set: { ...set, updated_at: now }, $inc: { version: 1 }, ...outboxPush(events, now) },
    );
    return res.modifiedCount === 1;
  }

  /** Seed 004's rename: the name inside every descendant's ancestors, with the positional operator. */
  async renameInDescendants(id: string, name: string): Promise<number> {
    const res = await this.coll.updateMany(
      { 'ancestors._id': new ObjectId(id) },
      { $set: { 'ancestors.$.name': name } },
    );
    return res.modifiedCount;
  }

  /**
   * A descendant's rebuilt ancestry after a move, with its CategoryMoved event; only if it is
   * still at the version the new ancestry was computed from (false: re-read and recompute).
   */
  async setAncestors(
    c: Category,
    ancestors: readonly AncestorRef[],
    events: readonly OutgoingMessage[],
    now: Date,
  ): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: new ObjectId(c.id), version: c.version, ...LIVE },
      {
        $set: { ancestors: toAncestorDocs(ancestors), updated_at: now },
        $inc: { version: 1 },
        ...outboxPush(events, now),
      },
    );
    return res.modifiedCount === 1;
  }

  /** Tombstone with the CategoryDeleted event; the slug is freed for reuse. */
  async markDeleted(c: Category, events: readonly OutgoingMessage[], now: Date): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: new ObjectId(c.id), version: c.version, ...LIVE },
      {
        $set: { deleted_at: now, updated_at: now, slug: `${c.slug}~deleted~${c.id}` },
        $inc: { version: 1 },
        ...outboxPush(events, now),
      },
    );
    return res.modifiedCount === 1;
  }
}
