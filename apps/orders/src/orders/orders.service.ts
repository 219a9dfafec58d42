import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Carts, createMessage } from '@mw/contracts';
import { OutboxRelay } from '@mw/messaging';
import { AppError, LOGGER, outgoingTrace } from '@mw/platform';
import { ORDERS_CONFIG } from '../config.token';
import type { OrdersConfig } from '../config';
import { Order, orderFromCheckout } from './order';
import { OrdersRepository } from './orders.repository';

@Injectable()
export class OrdersService {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly relay: OutboxRelay,
    @Inject(ORDERS_CONFIG) private readonly config: Readonly<OrdersConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Step 2 of the checkout saga: one order per checkout, created with its OrderCreated event. */
  async onCheckoutRequested(checkout: Carts.CheckoutRequestedPayload): Promise<void> {
    const decision = orderFromCheckout(checkout, this.config.ZONES, new Date());
    if (!decision.ok) {
      throw AppError.validation([{ field: `payload.${decision.field}`, message: decision.message }], 'ORDERS.INVALID_CHECKOUT');
    }
    const o = decision.order;
    const created = createMessage(
      'orders.orders.v1',
      'OrderCreated',
      { order_id: o.id, user_id: o.user_id, cart_id: o.cart_id, checkout_id: o.checkout_id, zone: o.zone, total: o.total, currency: 'RUB' },
      outgoingTrace(),
    );
    const inserted = await this.repo.insertWithEvents(o, [created]);
    this.logger.info({ order_id: o.id, checkout_id: o.checkout_id, duplicate: !inserted }, inserted ? 'order created' : 'duplicate checkout ignored');
    if (inserted) this.relay.nudge();
  }

  async get(id: string): Promise<Order> {
    const order = await this.repo.findById(id);
    if (!order) throw AppError.notFound('ORDERS.ORDER_NOT_FOUND', `order ${id} not found`);
    return order;
  }

  history(userId: string, limit: number, before?: { date: Date; id: string }): Promise<Order[]> {
    return this.repo.history(userId, limit, before, this.config.ORDER_HISTORY_READ_PREFERENCE);
  }
}
