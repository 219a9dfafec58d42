import { Controller, Headers, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { type Caller, CurrentCaller, Endpoint, Input, type InputOf, validate } from '@mw/platform';
import { userIdOf } from '../carts/owner';
import { IDEMPOTENCY_KEY } from './checkout';
import { checkoutCart } from './checkout.endpoints';
import { CheckoutAnswer, CheckoutService } from './checkout.service';

const KeyHeader = z.object({ 'idempotency-key': z.string().regex(IDEMPOTENCY_KEY, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -').optional() });

@Controller()
export class CheckoutController {
  constructor(private readonly checkouts: CheckoutService) {}

  @Endpoint(checkoutCart)
  async checkout(
    @Input() input: InputOf<typeof checkoutCart>,
    @CurrentCaller() caller: Caller,
    @Headers() headers: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CheckoutAnswer['body']> {
    const key = validate(KeyHeader, headers, 'headers')['idempotency-key'];
    const answer = await this.checkouts.checkout(input.params.id, userIdOf(caller), key);
    res.status(answer.httpStatus);
    return answer.body;
  }
}
