import { Collection, Db, IndexDescription, MongoServerError, ObjectId } from 'mongodb';

export const CATEGORY_MOVES = 'category_moves';

/**
 * The move journal (issue #9 item 8): a move is recorded here before its first write and
 * finished after its last, so a move cut short by a crash is resumed (on start and by a periodic
 * sweep) once its lease runs out. At most one move is pending in the whole tree (unique partial
 * index on `slot`): moves rewrite whole subtrees, and two of them interleaving could build a
 * cycle or leave a descendant with the ancestry of neither.
 */
export interface MoveDoc {
  _id: ObjectId;
  /** Always 'tree': the unique partial index allows one pending move. */
  slot: 'tree';
  state: 'pending' | 'done' | 'rejected';
  category_id: ObjectId;
  parent_id: ObjectId | null;
  owner: string;
  lease_until: Date;
  attempts: number;
  created_at: Date;
  finished_at?: Date;
  outcome?: string;
}

export interface PendingMove {
  readonly id: string;
  readonly category_id: string;
  readonly parent_id: string | null;
}

export const moveIndexes: IndexDescription[] = [
  { key: { slot: 1 }, name: 'one_pending_move', unique: true, partialFilterExpression: { state: 'pending' } },
  { key: { state: 1, lease_until: 1 }, name: 'state_lease' },
  // Finished moves are history for 30 days.
  { key: { finished_at: 1 }, name: 'finished_ttl', expireAfterSeconds: 30 * 24 * 3600 },
];

const toPending = (d: MoveDoc): PendingMove => ({
  id: d._id.toHexString(),
  category_id: d.category_id.toHexString(),
  parent_id: d.parent_id?.toHexString() ?? null,
});

export class MoveJournal {
  private readonly coll: Collection<MoveDoc>;

  constructor(db: Db) {
    this.coll = db.collection<MoveDoc>(CATEGORY_MOVES);
  }

  static async ensureIndexes(db: Db): Promise<void> {
    await db.collection(CATEGORY_MOVES).createIndexes(moveIndexes);
  }

  /** Takes the tree's move slot; null while another move is pending. */
  async begin(
    categoryId: string,
    parentId: string | null,
    owner: string,
    leaseMs: number,
  ): Promise<PendingMove | null> {
    const now = new Date();
    const doc: MoveDoc = {
      _id: new ObjectId(),
      slot: 'tree',
      state: 'pending',
      category_id: new ObjectId(categoryId),
      parent_id: parentId ? new ObjectId(parentId) : null,
      owner,
      lease_until: new Date(now.getTime() + leaseMs),
      attempts: 1,
      created_at: now,
    };
    try {
      await this.coll.insertOne(doc);
      return toPending(doc);
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return null;
      throw e;
    }
  }

  /** Extends the lease (server clock) if `owner` still holds the move; false if it was taken over. */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: new ObjectId(id), owner, state: 'pending' }, [
      { $set: { lease_until: { $add: ['$$NOW', leaseMs] } } },
    ]);
    return res.matchedCount === 1;
  }

  /** Takes over a pending move whose lease ran out (its mover died), judged by the server clock. */
  async takeOverStale(owner: string, leaseMs: number): Promise<PendingMove | null> {
    const doc = await this.coll.findOneAndUpdate(
      { state: 'pending', $expr: { $lt: ['$lease_until', '$$NOW'] } },
      [{ $set: { owner, lease_until: { $add: ['$$NOW', leaseMs] }, attempts: { $add: ['$attempts', 1] } } }],
      { returnDocument: 'after' },
    );
    return doc ? toPending(doc) : null;
  }

  async finish(id: string, state: 'done' | 'rejected', outcome: string): Promise<void> {
    await this.coll.updateOne(
      { _id: new ObjectId(id), state: 'pending' },
      { $set: { state, outcome, finished_at: new Date() } },
    );
  }

  async pendingCount(): Promise<number> {
    return this.coll.countDocuments({ state: 'pending' });
  }
}
