import type { Logger } from 'pino';
import { DueAnswer, contextFromTraceparent, inSpan } from '@mw/platform';
import { OrdersRepository } from '../orders/orders.repository';
import { SagaService } from './saga.service';

/** While no deadline is near, the deadline sweeper waits up to this many sweep intervals (16 s by default). */
export const SWEEP_IDLE_FACTOR = 16;

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

  /**
   * One pass, then the earliest deadline still waiting (one indexed read): the loop sleeps until
   * then instead of polling every second. Deadlines set by this process wake it through
   * `SagaNudges.deadline`; one set by another instance after this read is found by the idle bound.
   */
  async sweepAndPlan(now = new Date()): Promise<DueAnswer> {
    const work = await this.sweepOnce(now);
    return { work, nextDueAt: (await this.repo.earliestDeadline())?.getTime() };
  }

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
