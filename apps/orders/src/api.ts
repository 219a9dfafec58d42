import type { ApiDescription } from '@mw/platform';
import { OrdersController } from './orders/orders.controller';

const description = [
  'Orders (MongoDB) and the checkout saga orchestrator. Orders are created from `CheckoutRequested` on Kafka',
  '(carts checks out; the user id travels in that message), never over HTTP: this API reads them.',
  'Every call needs an access token of the realm `mobile-world`; a customer sees their own orders,',
  'support and operator anybody\'s (ADR 0007).',
].join(' ');

/** The HTTP API of the orders service: the document at /docs and docs/api/orders.openapi.json is built from it. */
export const api: ApiDescription = {
  name: 'orders',
  title: 'Mobile World — orders',
  description,
  version: '1',
  controllers: [OrdersController],
};
