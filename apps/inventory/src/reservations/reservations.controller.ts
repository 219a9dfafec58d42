import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex } from '@mw/contracts';
import { AppError, validate } from '@mw/platform';
import { ReservationsService } from './reservations.service';

const Params = z.strictObject({ orderId: ObjectIdHex });

@ApiTags('reservations')
@Controller('reservations')
export class ReservationsController {
  constructor(private readonly service: ReservationsService) {}

  @Get(':orderId')
  @ApiOperation({ summary: 'Reservation of an order: status, lines, expiry, and the answer given (rejection, commit failure)' })
  async get(@Param() params: unknown): Promise<unknown> {
    const { orderId } = validate(Params, params, 'params');
    const doc = await this.service.get(orderId);
    if (!doc) throw AppError.notFound('INVENTORY.RESERVATION_NOT_FOUND', `no reservation for order ${orderId}`);
    const { _outbox: _o, _id, ...rest } = doc;
    return { order_id: _id, ...rest };
  }
}
