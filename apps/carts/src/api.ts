import type { ApiDescription } from '@mw/platform';
import { ActivityController } from './activity/activity.controller';
import { CartsController } from './carts/carts.controller';
import { CheckoutController } from './checkout/checkout.controller';
import { MergeController } from './merge/merge.controller';
import { SessionsController } from './sessions/sessions.controller';

const description = [
  'Guest and user carts in Cassandra, alive 7 days after their last change (ADR 0060).',
  'A guest starts with POST /guest-sessions and sends `X-Guest-Session`; a signed-in user sends a bearer token from the',
  'Keycloak realm `mobile-world`. Every cart belongs to the caller who created it (somebody else’s cart is a 404). On',
  'login, POST /carts/merge moves the guest carts into the user’s. Names and prices come from the catalog, never from a',
  'client; money is a decimal string. Checkout is for signed-in customers and continues in orders (ADR 0050).',
  'GET /activity is a user’s recent activity — sign-ins, cart changes, checkouts, merges and order outcomes (ADR 0061).',
].join(' ');

/** The carts HTTP API (ADR 0007): every controller with routes; the OpenAPI document is built from their declarations. */
export const api: ApiDescription = {
  name: 'carts',
  title: 'Mobile World — carts',
  description,
  version: '1',
  controllers: [SessionsController, CartsController, MergeController, CheckoutController, ActivityController],
  guestSessions: true,
};
