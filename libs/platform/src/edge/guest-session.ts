import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error';

/** Header carrying a guest session (carts before login). */
export const GUEST_SESSION_HEADER = 'x-guest-session';

export interface GuestSession {
  readonly sessionId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

const FORMAT = /^gs1\.([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

const invalid = (message: string): AppError =>
  new AppError('AUTH.INVALID_GUEST_SESSION', 'unauthenticated', message, [{ field: `headers.${GUEST_SESSION_HEADER}`, message }]);

/**
 * Anonymous sessions a client cannot forge: `gs1.<uuid>.<expiry>.<HMAC-SHA256>` signed with a
 * server secret (GUEST_SESSION_SECRET). Whoever holds the string owns the guest cart, like a
 * session cookie; nobody can mint one for another session id.
 */
export class GuestSessions {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    if (secret.length < 32) throw new Error('GUEST_SESSION_SECRET must be at least 32 characters');
  }

  issue(): GuestSession & { readonly token: string } {
    const sessionId = randomUUID();
    const expiresAt = Math.floor(this.now() / 1000) + this.ttlSeconds;
    const body = `gs1.${sessionId}.${expiresAt}`;
    return { sessionId, expiresAt, token: `${body}.${this.sign(body)}` };
  }

  verify(token: string): GuestSession {
    const match = FORMAT.exec(token);
    if (!match) throw invalid('guest session is malformed');
    const [, sessionId, expiry, signature] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.sign(`gs1.${sessionId}.${expiry}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('guest session signature is not valid');
    const expiresAt = Number(expiry);
    if (expiresAt * 1000 <= this.now()) throw invalid('guest session expired');
    return { sessionId, expiresAt };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
