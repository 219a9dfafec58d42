import { Controller } from '@nestjs/common';
import { Endpoint, Input, type InputOf } from '@mw/platform';
import { StuckOrders } from './operations.service';
import type { StuckOrdersReport } from './stuck-orders';
import { listStuckOrders } from './stuck-orders.endpoints';

/** The operator's read endpoints of orders: what the saga left waiting past its deadline. */
@Controller()
export class OperationsController {
  constructor(private readonly stuck: StuckOrders) {}

  @Endpoint(listStuckOrders)
  async stuckOrders(@Input() input: InputOf<typeof listStuckOrders>): Promise<StuckOrdersReport> {
    return this.stuck.report(input.query.limit);
  }
}
