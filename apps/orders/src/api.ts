import type { ApiDescription } from '@mw/platform';
import { AnalyticsController } from './analytics/analytics.controller';
import { LifecycleController } from './lifecycle/lifecycle.controller';
import { OperationsController } from './operations/operations.controller';
import { OrdersController } from './orders/orders.controller';

const description = [
  'Orders (MongoDB) and the checkout saga orchestrator. Orders are created from `CheckoutRequested` on Kafka',
  '(carts checks out; the user id travels in that message), never over HTTP: this API reads them and moves them',
  'through their life after checkout: cancel (the customer or support, before delivery), delivery started and',
  'completed (operator), and shows operators the orders stuck past their saga deadline. Every call needs an access token of the realm `mobile-world`; a customer sees their own',
  'orders, support and operator anybody\'s (ADR 0007).',
].join(' ');

/** The HTTP API of the orders service: the document at /docs and docs/api/orders.openapi.json is built from it. */
export const api: ApiDescription = {
  name: 'orders',
  title: 'Mobile World — orders',
  description,
  version: '1',
  controllers: [OrdersController, LifecycleController, AnalyticsController, OperationsController],
};
