import { Controller, Headers, Param, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { z } from 'zod';
import { validate } from '@mw/platform';
import { IDEMPOTENCY_KEY } from './checkout';
import { CheckoutService } from './checkout.service';

const CartParams = z.strictObject({ id: z.uuid() });
const KeyHeader = z.object({ 'idempotency-key': z.string().regex(IDEMPOTENCY_KEY, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -').optional() });

@ApiTags('carts')
@Controller('carts')
export class CheckoutController {
  constructor(private readonly checkouts: CheckoutService) {}

  @Post(':id/checkout')
  @ApiOperation({ summary: 'Check the cart out at current catalog prices: 202 with a new checkout_id, 200 when it answers a checkout already started' })
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  async checkout(@Param() params: unknown, @Headers() headers: unknown, @Res({ passthrough: true }) res: Response) {
    const id = validate(CartParams, params, 'params').id;
    const key = validate(KeyHeader, headers, 'headers')['idempotency-key'];
    const answer = await this.checkouts.checkout(id, key);
    res.status(answer.httpStatus);
    return answer.body;
  }
}
