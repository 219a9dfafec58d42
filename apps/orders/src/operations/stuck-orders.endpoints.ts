import { z } from 'zod';
import { ObjectIdHex, UserId, ZoneCode } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import { SagaStateEnum } from '../orders/order-view';
import type { StuckOrdersReport as Report } from './stuck-orders';

const Timestamp = z.iso
  .datetime()
  .meta({ description: 'ISO-8601, UTC', example: '2026-11-21T10:00:00.000Z' });

export const StuckOrder = z.object({
  order_id: ObjectIdHex,
  user_id: UserId,
  zone: ZoneCode,
  state: SagaStateEnum.meta({ description: 'The saga state that waits past its deadline' }),
  deadline: Timestamp,
  overdue_seconds: z.number().int().min(0).meta({ description: 'How long ago the deadline passed' }),
  total: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .meta({ description: 'Decimal roubles, two places' }),
  updated_at: Timestamp,
});

export const StuckOrdersReport = z.object({
  as_of: Timestamp,
  grace_seconds: z.number().int().meta({
    description: 'A deadline counts as stuck once it passed this long ago (several sweeper passes)',
  }),
  orders: z.array(StuckOrder).meta({ description: 'Longest overdue first' }),
});

const example = {
  as_of: '2026-11-21T10:05:00.000Z',
  grace_seconds: 30,
  orders: [
    {
      order_id: '2080b7bbfd2b207dcbe80bb1',
      user_id: 'a11ce000-5eed-4000-8000-000000000001',
      zone: 'MSK',
      state: 'AWAITING_PAYMENT',
      deadline: '2026-11-21T10:01:00.000Z',
      overdue_seconds: 240,
      total: '7579.80',
      updated_at: '2026-11-21T10:00:00.000Z',
    },
  ],
} satisfies Report;

export const listStuckOrders = endpoint({
  operationId: 'listStuckOrders',
  method: 'GET',
  path: '/operations/stuck-orders',
  tag: 'operations',
  summary: 'Orders stuck past their saga deadline',
  description:
    'Orders whose saga waits (stock, payment, commit, cancelling) with a deadline that passed more than the sweeper ' +
    'grace ago (3 sweep intervals, at least 30 s — the rule of the `orders_saga_overdue` gauge): the deadline sweeper ' +
    'should have moved them on. Read from the primary, longest overdue first, at most `limit`. Operators only.',
  access: access.roles('operator'),
  rateLimit: 'reads',
  query: z.strictObject({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(50)
      .meta({ description: 'At most this many orders' }),
  }),
  response: { status: 200, description: 'The stuck orders', schema: StuckOrdersReport, example },
});
