import { z } from 'zod';
import { ObjectIdHex, UserId } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import { CURSOR_PATTERN } from './history-cursor';
import { OrderHistoryPage, OrderView } from './order-view';

const ALICE = 'a11ce000-5eed-4000-8000-000000000001';

/** A confirmed order as GET /orders/{id} answers it (the README's checkout). */
export const orderExample: OrderView = {
  id: '56e540608eca05a5f7400db0',
  checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
  cart_id: 'ba86e2d4-6c1f-4b7a-9e3d-2f5a8c0b7e41',
  user_id: ALICE,
  zone: 'MSK',
  status: 'confirmed',
  state: 'CONFIRMED',
  reason: null,
  deadline: null,
  lines: [
    {
      product_id: '5eed00000000000000000405',
      name: 'Huawei Plus черный',
      category_id: '5eed000000000000000000a3',
      qty: 2,
      unit_price: '3789.90',
      line_total: '7579.80',
    },
  ],
  totals: { items: 2, total: '7579.80', currency: 'RUB' },
  payment: { step: null, authorized: true, captured: true, reversed: null, reversal_round: 0, decline_code: null },
  stock_failure: null,
  stock_return: null,
  cancel_requested_at: null,
  history: [
    {
      from: 'AWAITING_STOCK',
      to: 'AWAITING_PAYMENT',
      event: 'StockReserved',
      cause: '0c5e9a1b-7d3f-4e28-b6a0-9f1c2d3e4a5b',
      at: '2026-11-21T10:00:00.412Z',
      by: { sub: 'inventory', role: 'system' },
    },
    {
      from: 'AWAITING_PAYMENT',
      to: 'CONFIRMED',
      event: 'PaymentCaptured',
      cause: '56e540608eca05a5f7400db0:sale',
      at: '2026-11-21T10:00:00.688Z',
      by: { sub: 'orders:payment-worker', role: 'system' },
    },
  ],
  order_date: '2026-11-21T10:00:00.118Z',
  created_at: '2026-11-21T10:00:00.118Z',
  updated_at: '2026-11-21T10:00:00.902Z',
  version: 5,
};

/** A first page of a customer's history (two of several orders). */
export const historyExample: OrderHistoryPage = {
  items: [
    {
      id: '56e540608eca05a5f7400db0',
      status: 'confirmed',
      state: 'CONFIRMED',
      reason: null,
      zone: 'MSK',
      total: '7579.80',
      currency: 'RUB',
      order_date: '2026-11-21T10:00:00.118Z',
    },
    {
      id: '2080b7bbfd2b207dcbe80bb1',
      status: 'cancelled',
      state: 'CANCELLED',
      reason: 'PAYMENT_DECLINED',
      zone: 'SPB',
      total: '129990.00',
      currency: 'RUB',
      order_date: '2026-11-20T17:42:08.311Z',
    },
  ],
  next_cursor: '1795196528311-2080b7bbfd2b207dcbe80bb1',
};

export const getOrder = endpoint({
  operationId: 'getOrder',
  method: 'GET',
  path: '/orders/:id',
  tag: 'orders',
  summary: 'An order: status, saga state and reason, lines, totals, payment and transition history',
  description:
    'Read from the primary (what a client decides on). A customer reads their own orders; support and operator read any. ' +
    "Somebody else's order answers 404 `ORDERS.ORDER_NOT_FOUND`, exactly like an id that does not exist.",
  access: access.anyUser,
  params: z.strictObject({
    id: ObjectIdHex.meta({ description: 'Order id (24 hex characters)', example: orderExample.id }),
  }),
  response: { status: 200, description: 'The order', schema: OrderView, example: orderExample },
});

export const listOrders = endpoint({
  operationId: 'listOrders',
  method: 'GET',
  path: '/orders',
  tag: 'orders',
  summary: "A user's order history, newest first, cursor-paginated",
  description:
    'May be read from a secondary (seconds behind the primary at most; see ORDER_HISTORY_MAX_STALENESS_SECONDS). ' +
    'A customer lists their own orders: the user is the token subject, and sending `user_id` is refused with 403 `AUTH.FORBIDDEN`. ' +
    "Support and operator list anybody's orders with `user_id` (their own without it). The last page has `next_cursor: null`.",
  access: access.roles('customer', 'support', 'operator'),
  rateLimit: 'reads',
  query: z.strictObject({
    user_id: UserId.optional().meta({
      description: 'Support and operator only: whose orders to list (a customer must not send it: 403)',
      example: ALICE,
    }),
    limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size' }),
    cursor: z.string().regex(CURSOR_PATTERN).optional().meta({
      description: '`next_cursor` of the previous page (`<epoch ms>-<order id>` of its last order)',
      example: historyExample.next_cursor,
    }),
  }),
  response: {
    status: 200,
    description: 'One page of the history',
    schema: OrderHistoryPage,
    example: historyExample,
  },
});
