import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex, UserId } from '@mw/contracts';
import { validate } from '@mw/platform';
import { decodeCursor, encodeCursor } from './history-cursor';
import { orderSummary, orderView } from './order-view';
import { OrdersQueries } from './orders.service';

const IdParams = z.strictObject({ id: ObjectIdHex });
const HistoryQuery = z.strictObject({
  user_id: UserId,
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

@ApiTags('orders')
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersQueries) {}

  @Get(':id')
  @ApiOperation({ summary: 'An order: status, saga state and reason, lines, totals, transition history (read from the primary)' })
  async get(@Param() params: unknown) {
    return orderView(await this.orders.get(validate(IdParams, params, 'params').id));
  }

  @Get()
  @ApiOperation({ summary: "A user's order history, newest first, cursor-paginated; the last page has no next_cursor" })
  @ApiQuery({ name: 'user_id', required: true })
  @ApiQuery({ name: 'limit', required: false, description: '1..100, default 20' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  async history(@Query() query: unknown) {
    const q = validate(HistoryQuery, query, 'query');
    const page = await this.orders.history(q.user_id, q.limit, q.cursor ? decodeCursor(q.cursor) : undefined);
    const last = page.more ? page.items[page.items.length - 1] : undefined;
    return { items: page.items.map(orderSummary), next_cursor: last ? encodeCursor(last.order_date, last.id) : null };
  }
}
