import { Controller } from '@nestjs/common';
import { access, AppError, Endpoint, endpoint, Input, type InputOf } from '@mw/platform';
import { ReservationParams, ReservationView, reservationExample, toReservationView } from './reservations.dto';
import { ReservationsService } from './reservations.service';

export const reservationEndpoint = endpoint({
  operationId: 'reservation',
  method: 'GET',
  path: '/reservations/:orderId',
  tag: 'reservations',
  summary: "An order's reservation and the answer it was given",
  description: 'Status, lines, expiry, and the rejection or commit failure answered on inventory.events.v1. 404 INVENTORY.RESERVATION_NOT_FOUND when the order never reached inventory.',
  access: access.roles('support', 'stock_manager', 'operator'),
  params: ReservationParams,
  response: { status: 200, description: 'The reservation', schema: ReservationView, example: reservationExample },
});

@Controller()
export class ReservationsController {
  constructor(private readonly service: ReservationsService) {}

  @Endpoint(reservationEndpoint)
  async get(@Input() { params }: InputOf<typeof reservationEndpoint>): Promise<ReservationView> {
    const doc = await this.service.get(params.orderId);
    if (!doc) throw AppError.notFound('INVENTORY.RESERVATION_NOT_FOUND', `no reservation for order ${params.orderId}`);
    return toReservationView(doc);
  }
}
