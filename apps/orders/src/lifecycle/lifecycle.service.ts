import { AppError, type Caller } from '@mw/platform';
import type { Order } from '../orders/order';
import { mayCancelOrder } from '../orders/order-access';
import { OrdersRepository } from '../orders/orders.repository';
import { actionId, type ActionInput } from '../saga/saga';
import { SagaService } from '../saga/saga.service';

/**
 * What people do to an order after checkout: the customer (or support) cancels it, the delivery
 * operator hands it over and records the delivery. Each is one saga input with a fixed id per
 * order, so a retried request is a no-op that answers the order as it is.
 */
export class OrderLifecycle {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly saga: SagaService,
  ) {}

  async cancel(caller: Caller, id: string): Promise<Order> {
    const orderId = id.toLowerCase();
    const order = await this.repo.findById(orderId);
    // Somebody else's order answers exactly like a missing one.
    if (!order || !mayCancelOrder(caller, order.user_id)) throw notFound(id);
    const by = caller.kind === 'user' ? caller.id : caller.kind;
    return this.act(id, { type: 'CancelRequested', id: actionId('CancelRequested', orderId), by });
  }

  startDelivery(id: string): Promise<Order> {
    return this.act(id, { type: 'DeliveryStarted', id: actionId('DeliveryStarted', id.toLowerCase()) });
  }

  complete(id: string): Promise<Order> {
    return this.act(id, { type: 'DeliveryCompleted', id: actionId('DeliveryCompleted', id.toLowerCase()) });
  }

  private async act(id: string, input: ActionInput): Promise<Order> {
    const r = await this.saga.act(id.toLowerCase(), input);
    if (r.outcome === 'unknown-order') throw notFound(id);
    return r.order;
  }
}

const notFound = (id: string): AppError =>
  AppError.notFound('ORDERS.ORDER_NOT_FOUND', `order ${id} not found`);
