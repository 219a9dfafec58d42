import type { ReadPreference } from 'mongodb';
import { AppError, type Caller } from '@mw/platform';
import { Order } from './order';
import { historyOwner, mayReadOrder } from './order-access';
import { OrdersRepository } from './orders.repository';

/** Reads of orders for the HTTP API, on behalf of the verified caller. */
export class OrdersQueries {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly historyReadPreference: ReadPreference,
  ) {}

  /** An order the caller may see; somebody else's answers exactly like a missing one (404, same code and message). */
  async get(caller: Caller, id: string): Promise<Order> {
    const order = await this.repo.findById(id.toLowerCase());
    if (!order || !mayReadOrder(caller, order.user_id)) throw AppError.notFound('ORDERS.ORDER_NOT_FOUND', `order ${id} not found`);
    return order;
  }

  /**
   * One page of the orders of the user the caller may list (see historyOwner), newest first, and
   * whether another page follows (one extra row is read).
   */
  async history(caller: Caller, requestedUserId: string | undefined, limit: number, before?: { date: Date; id: string }): Promise<{ items: Order[]; more: boolean }> {
    const userId = historyOwner(caller, requestedUserId);
    const rows = await this.repo.history(userId, limit + 1, before, this.historyReadPreference);
    return { items: rows.slice(0, limit), more: rows.length > limit };
  }
}
