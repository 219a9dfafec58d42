import type { ReadPreference } from 'mongodb';
import { AppError } from '@mw/platform';
import { Order } from './order';
import { OrdersRepository } from './orders.repository';

/** Reads of orders for the HTTP API. */
export class OrdersQueries {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly historyReadPreference: ReadPreference,
  ) {}

  async get(id: string): Promise<Order> {
    const order = await this.repo.findById(id.toLowerCase());
    if (!order) throw AppError.notFound('ORDERS.ORDER_NOT_FOUND', `order ${id} not found`);
    return order;
  }

  /** One page of a user's orders, newest first, and whether another page follows (one extra row is read). */
  async history(userId: string, limit: number, before?: { date: Date; id: string }): Promise<{ items: Order[]; more: boolean }> {
    const rows = await this.repo.history(userId, limit + 1, before, this.historyReadPreference);
    return { items: rows.slice(0, limit), more: rows.length > limit };
  }
}
