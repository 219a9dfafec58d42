import { z } from 'zod';
import { ObjectIdHex } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import { orderExample } from '../orders/orders.endpoints';
import { OrderView } from '../orders/order-view';

const OrderIdParams = z.strictObject({
  id: ObjectIdHex.meta({ description: 'Order id (24 hex characters)', example: orderExample.id }),
});

const cancelledExample: OrderView = {
  ...orderExample,
  status: 'cancelling',
  state: 'CANCELLING',
  reason: 'CANCELLED_BY_USER',
  deadline: '2026-11-21T10:05:30.000Z',
  payment: { ...orderExample.payment, step: 'REFUND' },
  stock_return: 'pending',
  history: [
    ...orderExample.history,
    {
      from: 'CONFIRMED',
      to: 'CANCELLING',
      event: 'CancelRequested',
      cause: `cancel:${orderExample.id}`,
      at: '2026-11-21T10:05:00.000Z',
      by: { sub: 'a11ce000-5eed-4000-8000-000000000001', role: 'customer' },
    },
  ],
  updated_at: '2026-11-21T10:05:00.000Z',
  version: 6,
};

type Transition = OrderView['history'][number];
const deliveryStarted: Transition = {
  from: 'CONFIRMED',
  to: 'DELIVERING',
  event: 'DeliveryStarted',
  cause: `deliver:${orderExample.id}`,
  at: '2026-11-22T08:00:00.000Z',
  by: { sub: '07700000-5eed-4000-8000-000000000006', role: 'operator' },
};
const deliveryCompleted: Transition = {
  from: 'DELIVERING',
  to: 'COMPLETED',
  event: 'DeliveryCompleted',
  cause: `complete:${orderExample.id}`,
  at: '2026-11-22T15:30:00.000Z',
  by: { sub: '07700000-5eed-4000-8000-000000000006', role: 'operator' },
};

export const cancelOrder = endpoint({
  operationId: 'cancelOrder',
  method: 'POST',
  path: '/orders/:id/cancel',
  tag: 'orders',
  summary: 'Cancel an order before it is delivered: the money is refunded, the stock goes back',
  description:
    'The customer who owns the order, or support. Waiting for stock: released at once (`cancelled`). Waiting for payment: ' +
    'the authorization is voided (or the capture refunded) and the stock released (`cancelling`, then `cancelled`). ' +
    'While inventory commits the stock the request is remembered (`cancel_requested_at`) and acted on when it answers. ' +
    'Confirmed: refunded and the sold units returned to stock (`cancelling` → `cancelled`). The reason is CANCELLED_BY_USER ' +
    'when the owner cancels, CANCELLED_BY_SUPPORT when support cancels for the customer; the transition records who ' +
    '(`history[].by`: token subject and acting role) and OrderCancelled carries it as `cancelled_by`. ' +
    'A repeat answers the order as it is. 409 ORDERS.CANCEL_REFUSED once the order is delivering or completed. ' +
    "Somebody else's order answers 404 ORDERS.ORDER_NOT_FOUND.",
  access: access.roles('customer', 'support'),
  params: OrderIdParams,
  response: {
    status: 202,
    description: 'Cancellation accepted (or already under way / done): the order now',
    schema: OrderView,
    example: cancelledExample,
  },
  errors: [409],
});

export const startDelivery = endpoint({
  operationId: 'startDelivery',
  method: 'POST',
  path: '/orders/:id/delivery',
  tag: 'orders',
  summary: 'Hand a confirmed order to delivery (status delivering): it can no longer be cancelled',
  description:
    'Operator only. A repeat answers the order as it is. 409 ORDERS.ILLEGAL_TRANSITION unless the order is confirmed.',
  access: access.roles('operator'),
  params: OrderIdParams,
  response: {
    status: 200,
    description: 'The order, delivering',
    schema: OrderView,
    example: {
      ...orderExample,
      status: 'delivering',
      state: 'DELIVERING',
      history: [...orderExample.history, deliveryStarted],
      updated_at: '2026-11-22T08:00:00.000Z',
      version: 6,
    },
  },
  errors: [409],
});

export const completeOrder = endpoint({
  operationId: 'completeOrder',
  method: 'POST',
  path: '/orders/:id/completion',
  tag: 'orders',
  summary: 'Record that an order was delivered (status completed)',
  description:
    'Operator only. A repeat answers the order as it is. 409 ORDERS.ILLEGAL_TRANSITION unless the order is delivering.',
  access: access.roles('operator'),
  params: OrderIdParams,
  response: {
    status: 200,
    description: 'The order, completed',
    schema: OrderView,
    example: {
      ...orderExample,
      status: 'completed',
      state: 'COMPLETED',
      history: [...orderExample.history, deliveryStarted, deliveryCompleted],
      updated_at: '2026-11-22T15:30:00.000Z',
      version: 7,
    },
  },
  errors: [409],
});
