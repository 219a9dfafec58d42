import { GuestSessions } from '@mw/platform';
import type { CartsConfig } from '../config';

/** DI token of the service's GuestSessions (issue on POST /guest-sessions, verify on merge). */
export const GUEST_SESSIONS = Symbol('GUEST_SESSIONS');

/**
 * The guest sessions of a carts process, from its validated config. Stateless (a key and a
 * lifetime), so the edge guard's instance (main.ts → bootstrapService) and the one the module
 * provides accept exactly the same sessions.
 */
export function guestSessionsOf(
  config: Pick<
    CartsConfig,
    | 'GUEST_SESSION_SECRET'
    | 'GUEST_SESSION_KEY_ID'
    | 'GUEST_SESSION_PREVIOUS_SECRET'
    | 'GUEST_SESSION_PREVIOUS_KEY_ID'
    | 'GUEST_SESSION_TTL_SECONDS'
  >,
): GuestSessions {
  const previous =
    config.GUEST_SESSION_PREVIOUS_SECRET && config.GUEST_SESSION_PREVIOUS_KEY_ID
      ? { id: config.GUEST_SESSION_PREVIOUS_KEY_ID, secret: config.GUEST_SESSION_PREVIOUS_SECRET }
      : undefined;
  return new GuestSessions(
    { current: { id: config.GUEST_SESSION_KEY_ID, secret: config.GUEST_SESSION_SECRET }, previous },
    config.GUEST_SESSION_TTL_SECONDS,
  );
}
