import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex, UserId, ZoneCode } from '@mw/contracts';
import { DecimalMoney, validate } from '@mw/platform';
import { CartsService } from './carts.service';

const CartParams = z.strictObject({ id: z.uuid() });
const ItemParams = z.strictObject({ id: z.uuid(), product_id: ObjectIdHex });
const CreateBody = z.strictObject({ zone: ZoneCode, user_id: UserId.optional(), session_id: z.uuid().optional() });
const PutItemBody = z.strictObject({
  name: z.string().min(1).max(300),
  qty: z.number().int('must be a whole number').min(1).max(99),
  unit_price: DecimalMoney,
});
const ListQuery = z.strictObject({
  user_id: UserId,
  status: z.enum(['active', 'checking_out', 'ordered', 'abandoned']).default('active'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

@ApiTags('carts')
@Controller('carts')
export class CartsController {
  constructor(private readonly carts: CartsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a cart: a guest cart (session) or a user cart; TTL 7 days' })
  @ApiBody({ schema: { example: { zone: 'MSK', user_id: 'user-42' } } })
  create(@Body() body: unknown) {
    return this.carts.create(validate(CreateBody, body, 'body'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A cart with its lines and total (minor units)' })
  get(@Param() params: unknown) {
    return this.carts.get(validate(CartParams, params, 'params').id);
  }

  @Get()
  @ApiOperation({ summary: "Ids of a user's carts in a status, newest first" })
  @ApiQuery({ name: 'user_id', required: true })
  @ApiQuery({ name: 'status', required: false })
  async list(@Query() query: unknown) {
    const q = validate(ListQuery, query, 'query');
    return { cart_ids: await this.carts.listByUser(q.user_id, q.status, q.limit) };
  }

  @Put(':id/items/:product_id')
  @ApiOperation({ summary: 'Set the quantity and price snapshot of one product (no read-before-write)' })
  @ApiBody({ schema: { example: { name: 'Смартфон Galaxy', qty: 1, unit_price: '59990.00' } } })
  putItem(@Param() params: unknown, @Body() body: unknown) {
    const p = validate(ItemParams, params, 'params');
    return this.carts.putItem(p.id, p.product_id, validate(PutItemBody, body, 'body'));
  }

  @Delete(':id/items/:product_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove one product from the cart' })
  removeItem(@Param() params: unknown) {
    const p = validate(ItemParams, params, 'params');
    return this.carts.removeItem(p.id, p.product_id);
  }
}
