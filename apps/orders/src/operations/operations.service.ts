import type { OrdersRepository } from '../orders/orders.repository';
import { type StuckOrdersReport, stuckOrdersReport } from './stuck-orders';

/** Orders past their saga deadline by more than the sweeper grace (index saga_deadline, primary). */
export class StuckOrders {
  constructor(
    private readonly repo: Pick<OrdersRepository, 'pastDeadline'>,
    private readonly graceMs: number,
  ) {}

  async report(limit: number, now = new Date()): Promise<StuckOrdersReport> {
    const overdue = await this.repo.pastDeadline(new Date(now.getTime() - this.graceMs), limit);
    return stuckOrdersReport(overdue, now, this.graceMs);
  }
}
