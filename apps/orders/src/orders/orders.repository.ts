import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Collection, Db, MongoServerError, ReadPreference } from 'mongodb';
import { OutgoingMessage } from '@mw/contracts';
import { outboxPush, WithOutbox } from '@mw/messaging';
import { MONGO_DB } from '@mw/persistence';
import { Order } from './order';

export const ORDERS_COLLECTION = 'orders';

type OrderDoc = Omit<Order, 'id'> & WithOutbox & { _id: string };

@Injectable()
export class OrdersRepository implements OnModuleInit {
  private readonly orders: Collection<OrderDoc>;

  constructor(@Inject(MONGO_DB) db: Db) {
    this.orders = db.collection<OrderDoc>(ORDERS_COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.orders.createIndexes([
      { key: { user_id: 1, order_date: -1 }, name: 'user_history' },
      { key: { status: 1 }, name: 'status' },
      { key: { zone: 1 }, name: 'zone' },
      { key: { checkout_id: 1 }, name: 'checkout_unique', unique: true },
    ]);
  }

  /** Inserts the order with its outgoing events in the same document. False if it already exists. */
  async insertWithEvents(order: Order, events: readonly OutgoingMessage[]): Promise<boolean> {
    const { id, ...rest } = order;
    try {
      await this.orders.insertOne({ _id: id, ...rest, _outbox: outboxPush(events).$push._outbox.$each });
      return true;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /** Status reads are decisions: primary only. */
  async findById(id: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id }, { projection: { _outbox: 0 }, readPreference: ReadPreference.primary });
    return doc ? toOrder(doc) : null;
  }

  /** Order history, newest first; may come from a secondary. Keyset pagination on order_date/_id. */
  async history(userId: string, limit: number, before: { date: Date; id: string } | undefined, readPreference: string): Promise<Order[]> {
    const filter = before
      ? { user_id: userId, $or: [{ order_date: { $lt: before.date } }, { order_date: before.date, _id: { $lt: before.id } }] }
      : { user_id: userId };
    const docs = await this.orders
      .find(filter, { projection: { _outbox: 0 }, readPreference: ReadPreference.fromString(readPreference) })
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
