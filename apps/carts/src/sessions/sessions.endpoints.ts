import { z } from 'zod';
import { access, endpoint } from '@mw/platform';

export const GuestSessionBody = z.object({
  guest_session: z
    .string()
    .regex(/^gs2\.[a-z0-9-]{1,16}\.[0-9a-f-]{36}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/)
    .meta({
      description:
        'Send it as the `X-Guest-Session` header; whoever holds it owns the guest carts of the session',
    }),
  session_id: z.uuid().meta({ description: 'The session id the guest carts are owned by' }),
  expires_at: z.iso
    .datetime()
    .meta({ description: 'After this the session (and access to its carts) ends; sign in and merge before' }),
});

export const issueGuestSession = endpoint({
  operationId: 'issueGuestSession',
  method: 'POST',
  path: '/guest-sessions',
  tag: 'sessions',
  summary: 'Start a guest session (carts before login)',
  description:
    'Issues a signed guest session `gs2.<key id>.<session uuid>.<expiry>.<HMAC-SHA256>` (GUEST_SESSION_SECRET, ' +
    'GUEST_SESSION_KEY_ID; sessions of GUEST_SESSION_PREVIOUS_* still verify during a key rotation) lasting ' +
    'GUEST_SESSION_TTL_SECONDS (7 days). It cannot be forged or extended; `X-Guest-Session: <guest_session>` then creates ' +
    'and uses guest carts, and on login POST /carts/merge moves them into the user’s cart. Limited per client address ' +
    '(RATE_LIMIT_GUEST_SESSIONS_PER_HOUR; IPv6 by /64, the address as TRUST_PROXY allows), whoever asks: each session ' +
    'gets a write bucket of its own, so sessions must not be free.',
  access: access.public,
  rateLimit: 'guest-sessions',
  response: {
    status: 201,
    description: 'A new guest session',
    schema: GuestSessionBody,
    example: {
      guest_session:
        'gs2.k1.6f1c1a52-3b7e-4c55-9c1d-8d8f6c1e2a10.1795428000.3qQm1b6bq6lH8QJ3Q2qk4m0s3h0bU9c3s4B5n6V7x8Y',
      session_id: '6f1c1a52-3b7e-4c55-9c1d-8d8f6c1e2a10',
      expires_at: '2026-11-29T10:00:00.000Z',
    },
  },
});
