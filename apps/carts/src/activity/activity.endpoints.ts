import { z } from 'zod';
import { UserId } from '@mw/contracts';
import { access, endpoint } from '@mw/platform';
import { ACTIVITY_TYPES, CURSOR_PATTERN } from './activity';
import { ActivityPage } from './activity-view';

const ALICE = 'a11ce000-5eed-4000-8000-000000000001';

export const activityExample: ActivityPage = {
  user_id: ALICE,
  items: [
    {
      event_time: '2026-11-22T10:00:00.902Z',
      event_type: 'ORDER_CONFIRMED',
      event_id: '0f4c2b1e-8d7a-4e6b-9c5d-3a2b1c0d9e8f',
      resource_id: '56e540608eca05a5f7400db0',
      details: {
        cart_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10',
        checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
      },
    },
    {
      event_time: '2026-11-22T10:00:00.100Z',
      event_type: 'CHECKOUT_REQUESTED',
      event_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
      resource_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10',
      details: {
        checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
        zone: 'MSK',
        lines: 1,
        total: '7579.80',
        currency: 'RUB',
      },
    },
    {
      event_time: '2026-11-22T09:58:12.345Z',
      event_type: 'CART_ITEM_PUT',
      event_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10:2',
      resource_id: '5eed00000000000000000405',
      details: {
        cart_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10',
        name: 'Huawei Plus черный',
        qty: 2,
        unit_price: '3789.90',
      },
    },
  ],
  next_cursor:
    'eyJ1IjoiU29oOXc5ejhrbFhleGoyVyIsImQiOiIyMDI2LTExLTIyIiwidCI6MTc5NTM0MTQ5MjM0NSwieSI6IkNBUlRfSVRFTV9QVVQiLCJpIjoiYmE4NmE3ZTEtM2YwYy00YjhlLTlkNTYtMmYxZjBjNmQ3YTEwOjIifQ',
};

export const listActivity = endpoint({
  operationId: 'listUserActivity',
  method: 'GET',
  path: '/activity',
  tag: 'activity',
  summary: "A user's recent activity, newest first, cursor-paginated",
  description:
    'Sign-ins (one LOGIN per identity-provider session), cart changes, checkouts, guest-cart merges and order outcomes of a ' +
    'signed-in user, kept 90 days (USER_EVENTS_TTL_SECONDS; ADR 0061). A customer reads their own: the user is the token ' +
    "subject, and sending `user_id` is refused with 403 `AUTH.FORBIDDEN`. Support and operator read anybody's with " +
    '`user_id` (their own without it). `type` keeps one kind of event; a page then reads at most 1,000 rows, so it may hold ' +
    'fewer than `limit` items with a `next_cursor` to go on. The last page has `next_cursor: null`. A cursor this service did ' +
    "not issue is a 422 `CARTS.INVALID_CURSOR`, another user's a 422 `CARTS.FOREIGN_CURSOR` (both naming `query.cursor`).",
  access: access.roles('customer', 'support', 'operator'),
  rateLimit: 'reads',
  query: z.strictObject({
    user_id: UserId.optional().meta({
      description: 'Support and operator only: whose activity to read (a customer must not send it: 403)',
      example: ALICE,
    }),
    type: z.enum(ACTIVITY_TYPES).optional().meta({ description: 'Only events of this type' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(20)
      .meta({ description: 'Page size (1–100, default 20)' }),
    cursor: z
      .string()
      .regex(CURSOR_PATTERN)
      .optional()
      .meta({
        description: '`next_cursor` of the previous page (opaque)',
        example: activityExample.next_cursor,
      }),
  }),
  response: {
    status: 200,
    description: 'One page of activity, newest first',
    schema: ActivityPage,
    example: activityExample,
  },
});
