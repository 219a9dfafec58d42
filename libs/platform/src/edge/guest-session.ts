import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error';

/** Header carrying a guest session (carts before login). */
export const GUEST_SESSION_HEADER = 'x-guest-session';

export interface GuestSession {
  readonly sessionId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** `gs2.<key id>.<session uuid>.<expiry>.<HMAC-SHA256>`; `gs1.` (no key id) was issued before key rotation existed. */
const FORMAT = /^gs2\.([a-z0-9-]{1,16})\.([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
const LEGACY_FORMAT = /^gs1\.([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A signing key of guest sessions and the id tokens name it by. */
export interface GuestSessionKey {
  readonly id: string;
  readonly secret: string;
}

/** Sign with `current`; verify with `current` and, during a rotation, `previous`. */
export interface GuestSessionKeys {
  readonly current: GuestSessionKey;
  readonly previous?: GuestSessionKey | undefined;
}

const invalid = (message: string): AppError =>
  new AppError('AUTH.INVALID_GUEST_SESSION', 'unauthenticated', message, [
    { field: `headers.${GUEST_SESSION_HEADER}`, message },
  ]);

/**
 * Anonymous sessions a client cannot forge: `gs2.<key id>.<uuid>.<expiry>.<HMAC-SHA256>` signed
 * with a server key (GUEST_SESSION_SECRET, id GUEST_SESSION_KEY_ID). Whoever holds the string owns
 * the guest cart, like a session cookie; nobody can mint one for another session id. Keys rotate
 * without logging guests out: new sessions are signed with the current key, sessions of the
 * previous key (GUEST_SESSION_PREVIOUS_*) still verify until they expire.
 */
export class GuestSessions {
  private readonly keys: GuestSessionKeys;

  constructor(
    keys: GuestSessionKeys | string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.keys = typeof keys === 'string' ? { current: { id: 'k1', secret: keys } } : keys;
    for (const key of [this.keys.current, this.keys.previous]) {
      if (key && key.secret.length < 32)
        throw new Error('GUEST_SESSION_SECRET must be at least 32 characters');
      if (key && !/^[a-z0-9-]{1,16}$/.test(key.id))
        throw new Error('a guest-session key id is 1–16 of a-z, 0-9, -');
    }
    if (this.keys.previous?.id === this.keys.current.id)
      throw new Error('the previous guest-session key needs an id of its own');
  }

  issue(): GuestSession & { readonly token: string } {
    const sessionId = randomUUID();
    const expiresAt = Math.floor(this.now() / 1000) + this.ttlSeconds;
    const body = `gs2.${this.keys.current.id}.${sessionId}.${expiresAt}`;
    return { sessionId, expiresAt, token: `${body}.${sign(this.keys.current.secret, body)}` };
  }

  verify(token: string): GuestSession {
    const match = FORMAT.exec(token);
    const legacy = match ? null : LEGACY_FORMAT.exec(token);
    if (!match && !legacy) throw invalid('guest session is malformed');
    const [sessionId, expiry, signature, candidates] = match
      ? ([match[2], match[3], match[4], this.keysNamed(match[1] ?? '')] as const)
      : ([legacy?.[1], legacy?.[2], legacy?.[3], this.allKeys()] as const);
    const body = match ? `gs2.${match[1]}.${sessionId}.${expiry}` : `gs1.${sessionId}.${expiry}`;
    const given = Buffer.from(signature ?? '');
    const valid = candidates.some((key) => {
      const expected = Buffer.from(sign(key.secret, body));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!valid) throw invalid('guest session signature is not valid');
    const expiresAt = Number(expiry);
    if (expiresAt * 1000 <= this.now()) throw invalid('guest session expired');
    return { sessionId: sessionId ?? '', expiresAt };
  }

  private allKeys(): GuestSessionKey[] {
    return this.keys.previous ? [this.keys.current, this.keys.previous] : [this.keys.current];
  }

  private keysNamed(id: string): GuestSessionKey[] {
    return this.allKeys().filter((k) => k.id === id);
  }
}

function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}
