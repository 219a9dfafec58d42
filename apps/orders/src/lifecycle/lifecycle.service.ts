import { AppError, type Caller } from '@mw/platform';
import type { Order } from '../orders/order';
import { mayCancelOrder } from '../orders/order-access';
import { OrdersRepository } from '../orders/orders.repository';
import { actionId, type ActionInput, type Actor } from '../saga/saga';
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
    // The owner acts as the customer; anybody else who may cancel does so as support.
    const by = actor(caller, caller.kind === 'user' && caller.id === order.user_id ? 'customer' : 'support');
    return this.act(id, { type: 'CancelRequested', id: actionId('CancelRequested', orderId), by });
  }

  startDelivery(caller: Caller, id: string): Promise<Order> {
    const by = actor(caller, 'operator');
    return this.act(id, { type: 'DeliveryStarted', id: actionId('DeliveryStarted', id.toLowerCase()), by });
  }

  complete(caller: Caller, id: string): Promise<Order> {
    const by = actor(caller, 'operator');
    return this.act(id, {
      type: 'DeliveryCompleted',
      id: actionId('DeliveryCompleted', id.toLowerCase()),
      by,
    });
  }

  private async act(id: string, input: ActionInput): Promise<Order> {
    const r = await this.saga.act(id.toLowerCase(), input);
    if (r.outcome === 'unknown-order') throw notFound(id);
    return r.order;
  }
}

/** The audit actor of a signed-in caller acting in `role` (the edge lets only users reach these actions). */
function actor(caller: Caller, role: Actor['role']): Actor {
  if (caller.kind !== 'user')
    throw new AppError(
      'AUTH.UNAUTHENTICATED',
      'unauthenticated',
      'this operation needs a bearer access token',
    );
  return { sub: caller.id, role };
}

const notFound = (id: string): AppError =>
  AppError.notFound('ORDERS.ORDER_NOT_FOUND', `order ${id} not found`);
