import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex, UserId, ZoneCode } from '@mw/contracts';
import { validate } from '@mw/platform';
import { CartsService } from './carts.service';
import { validateStrict } from './http-input';

const CartParams = z.strictObject({ id: z.uuid() });
const ItemParams = z.strictObject({ id: z.uuid(), product_id: ObjectIdHex });
const CreateBody = z.strictObject({ zone: ZoneCode, user_id: UserId.optional(), session_id: z.uuid().optional() });
/** Only the quantity: name and price come from the catalog (a `unit_price` is refused, naming the field). */
const PutItemBody = z.strictObject({ qty: z.number().int('must be a whole number').min(1).max(99) });
const CLIENT_PRICED = new Set(['unit_price', 'price', 'name', 'total', 'line_total']);
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
  @ApiOperation({ summary: 'Create a cart: a guest cart (session) or a user cart; lives CART_TTL_SECONDS after its last change' })
  @ApiBody({ schema: { example: { zone: 'MSK', user_id: 'user-42' } } })
  create(@Body() body: unknown) {
    return this.carts.create(validateStrict(CreateBody, body, 'body'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A cart with its lines at current catalog prices, availability in its zone and total' })
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
  @ApiOperation({ summary: 'Set the quantity of one product; its name and price come from the catalog' })
  @ApiBody({ schema: { example: { qty: 1 } } })
  putItem(@Param() params: unknown, @Body() body: unknown) {
    const p = validate(ItemParams, params, 'params');
    const b = validateStrict(PutItemBody, body, 'body', (k) => (CLIENT_PRICED.has(k) ? 'CARTS.CLIENT_PRICE_REJECTED' : undefined));
    return this.carts.putItem(p.id, p.product_id, b.qty);
  }

  @Delete(':id/items/:product_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove one product from the cart' })
  removeItem(@Param() params: unknown) {
    const p = validate(ItemParams, params, 'params');
    return this.carts.removeItem(p.id, p.product_id);
  }
}
