import { Controller } from '@nestjs/common';
import { type Caller, CurrentCaller, Endpoint, Input, type InputOf } from '@mw/platform';
import { type OrderView, orderView } from '../orders/order-view';
import { cancelOrder, completeOrder, startDelivery } from './lifecycle.endpoints';
import { OrderLifecycle } from './lifecycle.service';

/** After checkout: cancel (customer or support), delivery started and completed (operator). ADR 0052. */
@Controller()
export class LifecycleController {
  constructor(private readonly lifecycle: OrderLifecycle) {}

  @Endpoint(cancelOrder)
  async cancel(
    @Input() input: InputOf<typeof cancelOrder>,
    @CurrentCaller() caller: Caller,
  ): Promise<OrderView> {
    return orderView(await this.lifecycle.cancel(caller, input.params.id));
  }

  @Endpoint(startDelivery)
  async startDelivery(
    @Input() input: InputOf<typeof startDelivery>,
    @CurrentCaller() caller: Caller,
  ): Promise<OrderView> {
    return orderView(await this.lifecycle.startDelivery(caller, input.params.id));
  }

  @Endpoint(completeOrder)
  async complete(
    @Input() input: InputOf<typeof completeOrder>,
    @CurrentCaller() caller: Caller,
  ): Promise<OrderView> {
    return orderView(await this.lifecycle.complete(caller, input.params.id));
  }
}
