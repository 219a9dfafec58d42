import pino from 'pino';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';

/** Limits of the repository-level tests: the one zone MSK. */
export const TEST_LIMITS = { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 };

/** The reservations service on real repositories, without a relay (answers stay in the outbox) and silent. */
export const reservationsService = (
  reservations: ReservationsRepository,
  stock: StockRepository,
): ReservationsService =>
  new ReservationsService(
    reservations,
    stock,
    new InventoryEvents('test.events'),
    new OutboxNudge(),
    TEST_LIMITS,
    pino({ level: 'silent' }),
  );
