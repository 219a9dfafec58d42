import { Controller } from '@nestjs/common';
import { type Caller, CurrentCaller, Endpoint, Input, type InputOf } from '@mw/platform';
import { decodeCursor, encodeCursor } from './history-cursor';
import { type OrderHistoryPage, orderSummary, type OrderView, orderView } from './order-view';
import { getOrder, listOrders } from './orders.endpoints';
import { OrdersQueries } from './orders.service';

/** The orders HTTP API (ADR 0007): every operation declared in orders.endpoints.ts, on behalf of the token's subject. */
@Controller()
export class OrdersController {
  constructor(private readonly orders: OrdersQueries) {}

  @Endpoint(getOrder)
  async get(@Input() input: InputOf<typeof getOrder>, @CurrentCaller() caller: Caller): Promise<OrderView> {
    return orderView(await this.orders.get(caller, input.params.id));
  }

  @Endpoint(listOrders)
  async history(@Input() input: InputOf<typeof listOrders>, @CurrentCaller() caller: Caller): Promise<OrderHistoryPage> {
    const { user_id, limit, cursor } = input.query;
    const page = await this.orders.history(caller, user_id, limit, cursor ? decodeCursor(cursor) : undefined);
    const last = page.more ? page.items[page.items.length - 1] : undefined;
    return { items: page.items.map(orderSummary), next_cursor: last ? encodeCursor(last.order_date, last.id) : null };
  }
}
