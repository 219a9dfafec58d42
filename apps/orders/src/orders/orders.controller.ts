import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex, UserId } from '@mw/contracts';
import { validate } from '@mw/platform';
import { OrdersService } from './orders.service';
import { decodeCursor, encodeCursor } from './history-cursor';

const IdParams = z.strictObject({ id: ObjectIdHex });
const HistoryQuery = z.strictObject({
  user_id: UserId,
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

@ApiTags('orders')
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get(':id')
  @ApiOperation({ summary: 'An order with its items, status and saga state (read from the primary)' })
  get(@Param() params: unknown) {
    return this.orders.get(validate(IdParams, params, 'params').id);
  }

  @Get()
  @ApiOperation({ summary: "A user's order history, newest first, cursor-paginated" })
  @ApiQuery({ name: 'user_id', required: true })
  @ApiQuery({ name: 'limit', required: false, description: '1..100, default 20' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  async history(@Query() query: unknown) {
    const q = validate(HistoryQuery, query, 'query');
    const items = await this.orders.history(q.user_id, q.limit, q.cursor ? decodeCursor(q.cursor) : undefined);
    const last = items.length === q.limit ? items[items.length - 1] : undefined;
    return { items, next_cursor: last ? encodeCursor(last.order_date, last.id) : null };
  }
}
