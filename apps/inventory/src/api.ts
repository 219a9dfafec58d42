import type { ApiDescription } from '@mw/platform';
import { LedgerController } from './ledger/ledger.controller';
import { ReservationsController } from './reservations/reservations.controller';
import { StockController } from './stock/stock.controller';

/** The inventory HTTP API (ADR 0007): served at /docs, committed as docs/api/inventory.openapi.json. */
export const api: ApiDescription = {
  name: 'inventory',
  title: 'Mobile World — inventory',
  description:
    'Stock per (product, zone), expiring reservations and the movements ledger (MongoDB). Availability is public; restocks and stock-takes need the role stock_manager; low stock and the ledger are for stock managers and operators, the ledger check for operators; reservations for support, stock managers and operators. Reservations themselves are Kafka commands (inventory.commands.v1) answered on inventory.events.v1.',
  version: '1',
  controllers: [StockController, LedgerController, ReservationsController],
};
