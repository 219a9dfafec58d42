import { z } from 'zod';
import { access, endpoint } from '@mw/platform';
import { CartView } from '../carts/cart-view';
import { filledCartExample } from '../carts/carts.endpoints';

export const MergeAnswerBody = z.object({
  carts: z
    .array(CartView)
    .meta({ description: "The user's carts that took the guest lines (one per zone of the guest carts)" }),
  merged: z.array(
    z.object({
      guest_cart_id: z.uuid(),
      into_cart_id: z.uuid(),
      zone: z.string(),
      merged_at: z.iso.datetime(),
      dropped: z
        .array(
          z.object({
            product_id: z.string().regex(/^[0-9a-fA-F]{24}$/),
            reason: z.enum(['PRODUCT_UNAVAILABLE', 'TOO_MANY_LINES']),
          }),
        )
        .meta({
          description:
            'Guest lines not taken: no longer sold, or the user’s cart already held CART_MAX_LINES lines',
        }),
    }),
  ),
});

export const mergeGuestCarts = endpoint({
  operationId: 'mergeGuestCarts',
  method: 'POST',
  path: '/carts/merge',
  tag: 'carts',
  summary: "On login: merge the guest session's carts into the user's carts",
  description:
    'Call with the user’s bearer token AND the guest’s `X-Guest-Session` header (its proof of owning the guest carts; ' +
    'missing → 401 AUTH.GUEST_SESSION_REQUIRED, forged or expired → 401 AUTH.INVALID_GUEST_SESSION, both naming ' +
    '`headers.x-guest-session`). No body: each ' +
    'guest cart (normally one per session) goes into the user’s newest active cart in its own zone, created if there is ' +
    'none. Quantities are summed (at most 99 a line), lines beyond CART_MAX_LINES and products the catalog no longer ' +
    'sells are dropped and listed; names and prices come from the catalog. The guest cart is closed (status `merged`, ' +
    '`merged_into`). Idempotent and race-free: concurrent or repeated calls merge once and answer the same merge. ' +
    '404 CARTS.CART_NOT_FOUND when the session has no cart this user may merge; 409 CARTS.MERGE_PENDING while the ' +
    'target cart is being checked out (retry when the checkout ends).',
  access: access.anyUser,
  response: {
    status: 200,
    description: "The user's carts after the merge, and what was merged",
    schema: MergeAnswerBody,
    example: {
      carts: [filledCartExample],
      merged: [
        {
          guest_cart_id: '0c5e2b7d-9a41-4f6e-8d3c-1b2a3c4d5e6f',
          into_cart_id: filledCartExample.cart_id,
          zone: 'MSK',
          merged_at: '2026-11-22T10:05:00.000Z',
          dropped: [],
        },
      ],
    },
  },
  errors: [404, 409],
});
