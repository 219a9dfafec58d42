import { AnyBulkWriteOperation, Collection, Db, MongoServerError, ReadPreference, UpdateFilter, WriteConcern } from 'mongodb';
import { dropIndexIfPresent, duplicateKeyIndexes } from '@mw/persistence';
import { OutgoingMessage } from '@mw/contracts';
import { traceparentOf } from '@mw/platform';
import { outboxPush, toOutboxEntries, WithOutbox } from '@mw/messaging';
import type { PaymentStep, Saga } from '../saga/saga';
import { statusOf } from '../saga/saga';
import { Order } from './order';
import { sagaChanges } from './saga-update';

export const ORDERS_COLLECTION = 'orders';
/** Answers to checkouts that could not become orders (OrderRejected in the outbox), one per checkout. */
export const REJECTIONS_COLLECTION = 'checkout_rejections';

export type OrderDoc = Omit<Order, 'id'> & WithOutbox & { _id: string };

export interface RejectionDoc extends WithOutbox {
  _id: string;
  cart_id: string;
  user_id: string;
  code: string;
  field: string;
  message: string;
  at: Date;
}

/** Decision writes are acknowledged by a majority (they survive a failover); decision reads go to the primary. */
const majority = { writeConcern: new WriteConcern('majority') };
const primary = { readPreference: ReadPreference.primary };

/**
 * A transition's update: the saga's changed fields and new history records (`sagaChanges`), the
 * status, version + 1 and the outgoing messages pushed into the outbox.
 */
function transitionUpdate(before: Saga, after: Saga, messages: readonly OutgoingMessage[], now: Date): UpdateFilter<OrderDoc> {
  const { set, unset, appended } = sagaChanges(before, after);
  const push: Record<string, unknown> = {};
  if (appended.length > 0) push['saga.history'] = { $each: appended };
  if (messages.length > 0) Object.assign(push, outboxPush(messages, now).$push);
  return {
    $set: { ...set, status: statusOf(after.state), updated_at: now },
    $inc: { version: 1 },
    ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((k) => [k, ''])) } : {}),
    ...(Object.keys(push).length > 0 ? { $push: push } : {}),
  } as UpdateFilter<OrderDoc>;
}

/** Orders and their saga. Every saga change is one conditional update (version guard) carrying its outgoing messages. */
export class OrdersRepository {
  private readonly orders: Collection<OrderDoc>;
  private readonly rejections: Collection<RejectionDoc>;

  constructor(db: Db) {
    this.orders = db.collection<OrderDoc>(ORDERS_COLLECTION, majority);
    this.rejections = db.collection<RejectionDoc>(REJECTIONS_COLLECTION, majority);
  }

  async ensureIndexes(): Promise<void> {
    await dropIndexIfPresent(this.orders, 'user_history'); // its prefix: redundant since user_order_date
    await this.orders.createIndexes([
      // _id breaks ties of the newest-first sort inside the index: no in-memory sort
      { key: { user_id: 1, order_date: -1, _id: -1 }, name: 'user_order_date' },
      { key: { status: 1 }, name: 'status' },
      { key: { zone: 1 }, name: 'zone' },
      // One order per checkout, prefixed by the shard key (ADR 0010: MongoDB refuses a unique index
      // that is not); a checkout's zone and user are fixed by its cart, so a duplicate of one
      // checkout always meets this index on the same shard.
      { key: { zone: 1, user_id: 1, checkout_id: 1 }, name: 'checkout_unique_by_owner', unique: true },
      { key: { 'saga.deadline': 1 }, name: 'saga_deadline' },
      { key: { 'saga.payment.next_at': 1 }, name: 'payment_due' },
      { key: { payment_reconciled_at: 1, status: 1, updated_at: 1 }, name: 'payment_reconciliation' },
    ]);
    // the unique index before it (not shard-key prefixed): dropped once its successor exists
    await dropIndexIfPresent(this.orders, 'checkout_unique');
  }

  /** Inserts the order with its first messages in the same document. False if it already exists. */
  async insertWithMessages(order: Order, messages: readonly OutgoingMessage[]): Promise<boolean> {
    const { id, ...rest } = order;
    try {
      const traceparent = traceparentOf(); // the checkout's trace (ADR 0014)
      await this.orders.insertOne({ _id: id, ...rest, ...(traceparent ? { traceparent } : {}), _outbox: toOutboxEntries(messages) });
      return true;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /**
   * `insertWithMessages` of many orders in one unordered insert (group commit, ADR 0012 §4):
   * answers, per order, whether it was inserted. An order that exists already (a redelivered
   * checkout) is false, and only that duplicate-key error is swallowed. `traceparents[i]`: the
   * checkout trace of the i-th order (ADR 0014), read where that checkout's span is current.
   */
  async insertManyWithMessages(
    items: readonly { order: Order; messages: readonly OutgoingMessage[]; traceparent?: string | undefined }[],
  ): Promise<boolean[]> {
    const inserted = items.map(() => true);
    if (items.length === 0) return inserted;
    const docs = items.map(({ order: { id, ...rest }, messages, traceparent }): OrderDoc => ({
      _id: id,
      ...rest,
      ...(traceparent ? { traceparent } : {}),
      _outbox: toOutboxEntries(messages),
    }));
    try {
      await this.orders.insertMany(docs, { ordered: false });
    } catch (e) {
      for (const i of duplicateKeyIndexes(e)) inserted[i] = false;
    }
    return inserted;
  }

  /** Stores the answer to an invalid checkout once (a redelivery finds it there). */
  async insertRejection(doc: Omit<RejectionDoc, '_outbox'>, message: OutgoingMessage): Promise<boolean> {
    try {
      await this.rejections.insertOne({ ...doc, _outbox: toOutboxEntries([message]) });
      return true;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /**
   * One saga transition: new saga and status, version + 1, outgoing messages in the outbox — only
   * if nobody changed the order since it was read at `version`. False on a lost race.
   */
  async transition(order: Pick<Order, 'id' | 'version' | 'saga'>, saga: Saga, messages: readonly OutgoingMessage[], now: Date): Promise<boolean> {
    const res = await this.orders.updateOne({ _id: order.id, version: order.version }, transitionUpdate(order.saga, saga, messages, now));
    return res.modifiedCount === 1;
  }

  /**
   * Many `transition`s in one unordered bulkWrite (group commit, ADR 0012 §4), each guarded by its
   * order's version exactly as `transition`; answers, per transition, whether it was written. An
   * update's counts cannot say which operation of a bulk matched, so each one is an upsert whose
   * filter names the order's _id, version and shard key (zone, user_id: one shard, ADR 0010): a
   * lost guard tries to insert an _id that exists and fails alone, with a duplicate key at its
   * index, while the others are written. It never inserts: orders are never deleted, and only
   * orders just read are passed. Any other write error fails the whole call.
   */
  async transitionMany(
    items: readonly { order: Pick<Order, 'id' | 'version' | 'zone' | 'user_id' | 'saga'>; saga: Saga; messages: readonly OutgoingMessage[] }[],
    now: Date,
  ): Promise<boolean[]> {
    const written = items.map(() => true);
    if (items.length === 0) return written;
    const ops = items.map(({ order, saga, messages }): AnyBulkWriteOperation<OrderDoc> => ({
      updateOne: {
        filter: { _id: order.id, version: order.version, zone: order.zone, user_id: order.user_id },
        update: transitionUpdate(order.saga, saga, messages, now),
        upsert: true,
      },
    }));
    try {
      await this.orders.bulkWrite(ops, { ordered: false });
    } catch (e) {
      for (const i of duplicateKeyIndexes(e)) written[i] = false;
    }
    return written;
  }

  /**
   * Claims the payment step of an order for `leaseMs` (moves its next_at forward) if it is still
   * due at this version: exactly one claimer wins (the inline run, the poller, another instance).
   * Does not change the version. Answers the order as claimed (the caller needs no re-read), null
   * when someone else holds or moved the step. The filter carries the shard key (zone, user_id:
   * fixed at checkout), so mongos routes it to one shard (ADR 0010).
   */
  async claimPaymentStep(order: Pick<Order, 'id' | 'zone' | 'user_id' | 'version'>, step: PaymentStep, now: Date, leaseMs: number): Promise<Order | null> {
    const doc = await this.orders.findOneAndUpdate(
      { _id: order.id, zone: order.zone, user_id: order.user_id, version: order.version, 'saga.payment.step': step, 'saga.payment.next_at': { $lte: now } },
      { $set: { 'saga.payment.next_at': new Date(now.getTime() + leaseMs) }, $inc: { 'saga.payment.attempts': 1 } },
      { returnDocument: 'after', projection: { _outbox: 0 } },
    );
    return doc ? toOrder(doc) : null;
  }

  /** After a transient payment failure: try again at `at` (backoff), if the step is still current. */
  async deferPaymentStep(id: string, version: number, step: PaymentStep, at: Date): Promise<void> {
    await this.orders.updateOne({ _id: id, version, 'saga.payment.step': step }, { $set: { 'saga.payment.next_at': at } });
  }

  /** `findById` of many orders in one read (primary): the ones that exist, by id. */
  async findByIds(ids: readonly string[]): Promise<Map<string, Order>> {
    if (ids.length === 0) return new Map();
    const docs = await this.orders.find({ _id: { $in: [...ids] } }, { projection: { _outbox: 0 }, ...primary }).toArray();
    return new Map(docs.map((d) => [d._id, toOrder(d)]));
  }

  /** Status reads are decisions: primary only. */
  async findById(id: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id }, { projection: { _outbox: 0 }, ...primary });
    return doc ? toOrder(doc) : null;
  }

  /** Orders whose current wait is over (the sweeper). */
  async pastDeadline(now: Date, limit: number): Promise<Order[]> {
    const docs = await this.orders.find({ 'saga.deadline': { $lte: now } }, { projection: { _outbox: 0 }, ...primary }).sort({ 'saga.deadline': 1 }).limit(limit).toArray();
    return docs.map(toOrder);
  }

  /** The earliest saga deadline of any order (past or future), for the sweeper's next wake; undefined: none waits. */
  async earliestDeadline(): Promise<Date | undefined> {
    const doc = await this.orders.find({ 'saga.deadline': { $type: 'date' } }, { projection: { 'saga.deadline': 1 }, hint: 'saga_deadline', ...primary }).sort({ 'saga.deadline': 1 }).limit(1).next();
    return doc?.saga.deadline ?? undefined;
  }

  /** How many orders wait in each saga state with a deadline at or before `before` (index saga_deadline). */
  async overdueByState(before: Date): Promise<{ state: string; count: number }[]> {
    const rows = await this.orders
      .aggregate<{ _id: string; count: number }>(
        [{ $match: { 'saga.deadline': { $lte: before } } }, { $group: { _id: '$saga.state', count: { $sum: 1 } } }],
        primary,
      )
      .toArray();
    return rows.map((r) => ({ state: r._id, count: r.count }));
  }

  /**
   * Cancelled orders the payment reconciliation has not checked yet, untouched since `before`:
   * CANCELLED, or CANCELLING with the reversal already recorded (waiting only for stock).
   */
  async reconciliationDue(before: Date, limit: number): Promise<Order[]> {
    const docs = await this.orders
      .find(
        {
          payment_reconciled_at: null,
          updated_at: { $lte: before },
          $or: [{ status: 'cancelled' }, { status: 'cancelling', 'saga.payment.reversed': { $ne: null } }],
        },
        { projection: { _outbox: 0 }, ...primary },
      )
      .sort({ updated_at: 1 })
      .limit(limit)
      .toArray();
    return docs.map(toOrder);
  }

  /** Marks a checked order consistent, if it did not change since it was read at `version`. */
  async markPaymentReconciled(id: string, version: number, now: Date): Promise<boolean> {
    const res = await this.orders.updateOne({ _id: id, version }, { $set: { payment_reconciled_at: now } });
    return res.modifiedCount === 1;
  }

  /** Orders with a payment step due now (the payment worker). */
  async paymentDue(now: Date, limit: number): Promise<Order[]> {
    const docs = await this.orders
      .find({ 'saga.payment.next_at': { $lte: now } }, { projection: { _outbox: 0 }, ...primary })
      .sort({ 'saga.payment.next_at': 1 })
      .limit(limit)
      .toArray();
    return docs.map(toOrder);
  }

  /** Order history, newest first; may come from a secondary. Keyset pagination on order_date/_id. */
  async history(userId: string, limit: number, before: { date: Date; id: string } | undefined, readPreference: ReadPreference): Promise<Order[]> {
    const filter = before
      ? { user_id: userId, $or: [{ order_date: { $lt: before.date } }, { order_date: before.date, _id: { $lt: before.id } }] }
      : { user_id: userId };
    const docs = await this.orders
      .find(filter, { projection: { _outbox: 0 }, readPreference })
      .sort({ order_date: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toOrder);
  }
}

function toOrder(doc: OrderDoc): Order {
  const { _id, _outbox: _ignored, ...rest } = doc;
  return { id: _id, ...rest };
}
