import {
  AnyBulkWriteOperation,
  ClientSession,
  Collection,
  Db,
  Filter,
  MongoServerError,
  ReadPreference,
  UpdateFilter,
} from 'mongodb';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush, toOutboxEntries } from '@mw/messaging';
import { duplicateKeyIndexes } from '@mw/persistence';
import { PENDING_WORK, PendingWork, RejectionCode, ReservationDoc, ReservationStatus } from './reservation';

export const RESERVATIONS = 'reservations';
const primary = { readPreference: ReadPreference.primary };

type TransitionSet = { status: ReservationStatus; pending?: PendingWork } & Partial<
  Pick<ReservationDoc, 'rejection' | 'release_reason' | 'expires_at' | 'return_reason'>
>;

/** One guarded status change with its answer, for `updateOne` or a bulkWrite. */
export type TransitionOp = ReturnType<typeof transitionOp>;

function transitionOp(
  orderId: string,
  from: readonly ReservationStatus[],
  set: TransitionSet,
  message: OutgoingMessage | null,
  extra: Filter<ReservationDoc>,
): { filter: Filter<ReservationDoc>; update: UpdateFilter<ReservationDoc> } {
  return {
    filter: { ...extra, _id: orderId, status: { $in: [...from] } } as Filter<ReservationDoc>,
    update: {
      $set: { ...set, updated_at: new Date() },
      ...(message ? outboxPush([message]) : {}),
    } as UpdateFilter<ReservationDoc>,
  };
}

/** Per-order reservation documents; every status change is a conditional update carrying its answer. */
export class ReservationsRepository {
  readonly coll: Collection<ReservationDoc>;

  constructor(readonly db: Db) {
    this.coll = db.collection<ReservationDoc>(RESERVATIONS);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ status: 1, expires_at: 1 }, { name: 'status_expiry' });
    await this.coll.createIndex({ pending: 1, updated_at: 1 }, { name: 'pending_work', sparse: true });
    await this.coll.createIndex({ status: 1, updated_at: 1 }, { name: 'status_updated' });
    // Units sold per (product, zone) for the ledger check: only committed orders are indexed.
    await this.coll.createIndex(
      { 'lines.product_id': 1, zone: 1, pending: 1 },
      { name: 'committed_lines', partialFilterExpression: { status: 'committed' } },
    );
    // Returns still being applied per (product, zone), for the same check: only returned orders are indexed.
    await this.coll.createIndex(
      { pending: 1, 'lines.product_id': 1, zone: 1 },
      { name: 'returns_in_flight', partialFilterExpression: { status: 'returned' } },
    );
  }

  /**
   * Units of one (product, zone) sold by committed reservations, and the committed orders whose
   * sale is still being applied to the stock document (`pending: 'commit'`), with their units.
   * `session`: the snapshot the ledger check reads everything in.
   */
  async sales(
    productId: string,
    zone: string,
    session?: ClientSession,
  ): Promise<{ units: number; applying: { order_id: string; qty: number }[] }> {
    const opts = { readPreference: ReadPreference.primary, ...(session ? { session } : {}) };
    const match = { 'lines.product_id': productId, zone, status: 'committed' as const };
    const [sum] = await this.coll
      .aggregate<{ units: number }>(
        [
          { $match: match },
          { $unwind: '$lines' },
          { $match: { 'lines.product_id': productId } },
          { $group: { _id: null, units: { $sum: '$lines.qty' } } },
        ],
        { ...opts, hint: 'committed_lines' },
      )
      .toArray();
    const applying = await this.coll
      // Hinted: `pending_work` would also answer, but scans the pending commits of every product.
      .find(
        { ...match, pending: 'commit' },
        {
          ...opts,
          hint: 'committed_lines',
          projection: { lines: { $elemMatch: { product_id: productId } } },
        },
      )
      .toArray();
    return {
      units: sum?.units ?? 0,
      applying: applying.map((d) => ({ order_id: d._id, qty: d.lines[0]?.qty ?? 0 })),
    };
  }

  /**
   * Returned orders of one (product, zone) whose return is still being applied (`pending: 'return'`),
   * with their units there and whether the order already records the line as returned.
   */
  async returning(
    productId: string,
    zone: string,
    session?: ClientSession,
  ): Promise<{ order_id: string; qty: number; recorded: boolean }[]> {
    const docs = await this.coll
      .find(
        { 'lines.product_id': productId, zone, status: 'returned', pending: 'return' },
        {
          readPreference: ReadPreference.primary,
          ...(session ? { session } : {}),
          hint: 'returns_in_flight',
          projection: { lines: { $elemMatch: { product_id: productId } }, returned_lines: 1 },
        },
      )
      .toArray();
    return docs.map((d) => ({
      order_id: d._id,
      qty: d.lines[0]?.qty ?? 0,
      recorded: (d.returned_lines ?? []).includes(productId),
    }));
  }

  /** Inserts the order's document, or returns the one a previous delivery created. */
  async claim(doc: ReservationDoc): Promise<{ created: boolean; doc: ReservationDoc }> {
    try {
      await this.coll.insertOne(doc);
      return { created: true, doc };
    } catch (e) {
      if (!(e instanceof MongoServerError && e.code === 11000)) throw e;
      const existing = await this.get(doc._id);
      if (!existing) throw e;
      return { created: false, doc: existing };
    }
  }

  /**
   * `claim` of many orders in one unordered insert (group commit, ADR 0012 §4): answers the ids it
   * created. An order that exists already (a redelivery, a tombstone) is left out, and only that
   * duplicate-key error is swallowed (`duplicateKeyIndexes`: not beside a write concern error): its
   * command takes the per-message path, which reads it.
   */
  async claimMany(docs: readonly ReservationDoc[]): Promise<Set<string>> {
    const ids = new Set(docs.map((d) => d._id));
    if (docs.length === 0) return ids;
    try {
      await this.coll.insertMany([...docs], { ordered: false });
    } catch (e) {
      // an order that exists is not claimed here; a write concern error is raised even beside
      // duplicates, so a claim a majority may not have is never taken as made
      for (const i of duplicateKeyIndexes(e)) ids.delete(docs[i]!._id);
    }
    return ids;
  }

  /** The update of `transition`, built where the answer's trace is current (a batch builds each in its message's span). */
  transitionOp(
    orderId: string,
    from: readonly ReservationStatus[],
    set: TransitionSet,
    /** The answer stored with the change; null: a change nobody waits to hear of (a confirmed order's sale). */
    message: OutgoingMessage | null,
    extra: Filter<ReservationDoc> = {},
  ): TransitionOp {
    return transitionOp(orderId, from, set, message, extra);
  }

  /** Many `transition`s in one unordered bulkWrite; answers how many orders moved (each op moves one or none). */
  async transitionMany(ops: readonly TransitionOp[], session?: ClientSession): Promise<number> {
    if (ops.length === 0) return 0;
    const res = await this.coll.bulkWrite(
      ops.map((op): AnyBulkWriteOperation<ReservationDoc> => ({ updateOne: op })),
      { ordered: false, ...(session ? { session } : {}) },
    );
    return res.modifiedCount;
  }

  /**
   * Inserts finished orders, each with its answer in `_outbox` (`answered`, built in the answer's
   * trace), in one insert inside `session`'s transaction (the one-commit reserve, ADR 0015 §7).
   * False when one of them exists (a redelivery, a tombstone): the transaction is then aborted by
   * the server and the caller takes its staged path.
   */
  async insertAnswered(docs: readonly ReservationDoc[], session: ClientSession): Promise<boolean> {
    if (docs.length === 0) return true;
    try {
      await this.coll.insertMany([...docs], { session });
      return true;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /** The document `insertAnswered` inserts: `doc` with `answer` as its outbox entry, traced where this is called. */
  answered(doc: ReservationDoc, answer: OutgoingMessage): ReservationDoc {
    return { ...doc, _outbox: toOutboxEntries([answer]) };
  }

  /** Inserts a closed document (rejection of an invalid command, unknown-order tombstone); false if one exists. */
  async insertClosed(doc: ReservationDoc, message: OutgoingMessage): Promise<boolean> {
    try {
      await this.coll.insertOne(this.answered(doc, message));
      return true;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /**
   * Moves the order from one of `from` to a new status, storing the answer in the same update.
   * Returns false when the order is not in `from` (a duplicate, or another instance got there first).
   */
  async transition(
    orderId: string,
    from: readonly ReservationStatus[],
    set: TransitionSet,
    message: OutgoingMessage,
    extra: Filter<ReservationDoc> = {},
  ): Promise<boolean> {
    const { filter, update } = transitionOp(orderId, from, set, message, extra);
    const res = await this.coll.updateOne(filter, update);
    return res.modifiedCount === 1;
  }

  /**
   * `transition`, answering with the order as the update left it (null: not in `from`), so work that
   * follows the change (`pending`) needs no second read of the order.
   */
  transitionReturning(
    orderId: string,
    from: readonly ReservationStatus[],
    set: TransitionSet,
    message: OutgoingMessage | null,
    extra: Filter<ReservationDoc> = {},
  ): Promise<ReservationDoc | null> {
    const { filter, update } = transitionOp(orderId, from, set, message, extra);
    return this.coll.findOneAndUpdate(filter, update, {
      returnDocument: 'after',
      projection: { _outbox: 0 },
    });
  }

  /** Records the answer to a CommitStock of a closed reservation, once. */
  async markCommitFailure(orderId: string, code: RejectionCode, message: OutgoingMessage): Promise<boolean> {
    const res = await this.coll.updateOne(
      {
        _id: orderId,
        status: { $in: ['released', 'expired', 'rejected'] },
        commit_failure: { $exists: false },
      },
      {
        $set: { commit_failure: code, updated_at: new Date() },
        ...outboxPush([message]),
      } as UpdateFilter<ReservationDoc>,
    );
    return res.modifiedCount === 1;
  }

  /** Answers a ReleaseStock of a rejected order (nothing was held), once. */
  async markReleaseAnswered(orderId: string, message: OutgoingMessage): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: orderId, status: 'rejected', release_answered: { $exists: false } },
      {
        $set: { release_answered: true, updated_at: new Date() },
        ...outboxPush([message]),
      } as UpdateFilter<ReservationDoc>,
    );
    return res.modifiedCount === 1;
  }

  /** Answers a ReserveStock that arrived after a release/commit had already closed the order, once. */
  async rejectLateReserve(
    orderId: string,
    rejection: NonNullable<ReservationDoc['rejection']>,
    message: OutgoingMessage,
  ): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: orderId, tombstone: true, rejection: { $exists: false } }, {
      $set: { rejection, updated_at: new Date() },
      ...outboxPush([message]),
    } as UpdateFilter<ReservationDoc>);
    return res.modifiedCount === 1;
  }

  /**
   * Stores one more answer for the order while it still matches `state` (the state the answer was
   * decided on); false if it moved meanwhile. No status change: a repeated ReturnStock is answered
   * again, a failed one each time it comes.
   */
  async answer(orderId: string, state: Filter<ReservationDoc>, message: OutgoingMessage): Promise<boolean> {
    const res = await this.coll.updateOne(
      { ...state, _id: orderId } as Filter<ReservationDoc>,
      outboxPush([message]) as UpdateFilter<ReservationDoc>,
    );
    return res.modifiedCount === 1;
  }

  /** Records that a returned order's line is back on sale on its stock document (idempotent). */
  async recordReturnedLine(orderId: string, productId: string): Promise<void> {
    await this.coll.updateOne(
      { _id: orderId, status: 'returned' },
      { $addToSet: { returned_lines: productId }, $set: { updated_at: new Date() } },
    );
  }

  async clearPending(orderId: string, pending: PendingWork): Promise<void> {
    await this.coll.updateOne(
      { _id: orderId, pending },
      { $unset: { pending: '' }, $set: { updated_at: new Date() } },
    );
  }

  /** `clearPending` of many orders in one update. */
  async clearPendingMany(orderIds: readonly string[], pending: PendingWork): Promise<void> {
    if (orderIds.length === 0) return;
    await this.coll.updateMany(
      { _id: { $in: [...orderIds] }, pending },
      { $unset: { pending: '' }, $set: { updated_at: new Date() } },
    );
  }

  get(orderId: string): Promise<ReservationDoc | null> {
    return this.coll.findOne({ _id: orderId }, { ...primary, projection: { _outbox: 0 } });
  }

  findMany(orderIds: readonly string[]): Promise<ReservationDoc[]> {
    return this.coll
      .find({ _id: { $in: [...orderIds] } }, { ...primary, projection: { _outbox: 0 } })
      .toArray();
  }

  expiredReserved(now: Date, limit: number): Promise<ReservationDoc[]> {
    // Hinted (here and below): with few documents the planner may pick the other `status_*` index and scan every order of the status.
    return this.coll
      .find(
        { status: 'reserved', expires_at: { $lte: now } },
        { ...primary, hint: 'status_expiry', projection: { _outbox: 0 } },
      )
      .limit(limit)
      .toArray();
  }

  /** When the next reserved order expires (past or future; undefined: none is reserved) — the sweeper's next wake. */
  async earliestExpiry(): Promise<Date | undefined> {
    const doc = await this.coll
      .find({ status: 'reserved' }, { ...primary, hint: 'status_expiry', projection: { expires_at: 1 } })
      .sort({ expires_at: 1 })
      .limit(1)
      .next();
    return doc?.expires_at;
  }

  stalePending(before: Date, limit: number): Promise<ReservationDoc[]> {
    return this.coll
      .find(
        { pending: { $in: [...PENDING_WORK] }, updated_at: { $lt: before } },
        { ...primary, projection: { _outbox: 0 } },
      )
      .limit(limit)
      .toArray();
  }

  staleReserving(before: Date, limit: number): Promise<ReservationDoc[]> {
    return this.coll
      .find(
        { status: 'reserving', updated_at: { $lt: before } },
        { ...primary, hint: 'status_updated', projection: { _outbox: 0 } },
      )
      .limit(limit)
      .toArray();
  }
}
