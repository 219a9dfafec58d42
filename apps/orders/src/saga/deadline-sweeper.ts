import type { Logger } from 'pino';
import { contextFromTraceparent, inSpan } from '@mw/platform';
import { OrdersRepository } from '../orders/orders.repository';
import { SagaService } from './saga.service';

/**
 * Acts on sagas whose persisted deadline has passed: feeds them a DeadlinePassed input whose id
 * names the state and the deadline, so several sweepers (instances) firing the same deadline
 * produce one transition (version guard + cause de-duplication), and a crash at any point is
 * repaired by the next pass (the deadline is still in the document until the transition is written).
 */
export class DeadlineSweeper {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly saga: SagaService,
    private readonly logger: Logger,
    private readonly batch = 100,
  ) {}

  async sweepOnce(now = new Date()): Promise<number> {
    let fired = 0;
    for (const order of await this.repo.pastDeadline(now, this.batch)) {
      const deadline = order.saga.deadline;
      if (!deadline) continue;
      // in the checkout's trace (ADR 0014): what the deadline decides continues it
      const outcome = await inSpan(
        `saga deadline ${order.saga.state}`,
        { parent: contextFromTraceparent(order.traceparent), attributes: { 'mw.order_id': order.id, 'mw.saga.state': order.saga.state } },
        () => this.saga.apply(order.id, { type: 'DeadlinePassed', id: `deadline:${order.saga.state}:${deadline.toISOString()}` }, null),
      );
      if (outcome === 'applied') fired++;
    }
    if (fired > 0) this.logger.info({ fired }, 'saga deadlines fired');
    return fired;
  }
}
