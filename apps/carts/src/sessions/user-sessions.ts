/**
 * User sessions (seed 003 `user_sessions`, ADR 0061), free of framework and driver code. A row per
 * guest session (user_id null) and per identity-provider login session of a user (keyed by the
 * token's `sid`); it lives USER_SESSION_TTL_SECONDS (24 h) and never authorizes anything: guest
 * sessions are proven by their signature, users by their token.
 */
import { createHash } from 'node:crypto';

export interface UserSession {
  readonly session_id: string;
  /** The Keycloak subject; null for a guest. */
  readonly user_id: string | null;
  readonly created_at: Date;
  /** When the row expires (created_at + its TTL). */
  readonly expires_at: Date;
  /** JSON: what kind of session, and what it came from. */
  readonly session_data: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Namespace of name-based session ids (RFC 4122 v5) for a `sid` that is not itself a uuid. */
const SID_NAMESPACE = '1b0c5f4e-6f5a-4d5e-9a61-0c3d2b1a0061';

/**
 * The session_id of a login session: Keycloak's `sid` is a uuid and is used as is (support can find
 * it in Keycloak); any other opaque `sid` maps to a name-based uuid (v5), the same on every instance.
 */
export function sessionIdOfSid(sid: string): string {
  if (UUID.test(sid)) return sid.toLowerCase();
  const ns = Buffer.from(SID_NAMESPACE.replace(/-/g, ''), 'hex');
  const h = createHash('sha1').update(ns).update(sid, 'utf8').digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

const lifetime = (now: Date, ttlSeconds: number): Date => new Date(now.getTime() + ttlSeconds * 1000);

/** The row of a guest session issued by POST /guest-sessions. */
export function guestSession(
  sessionId: string,
  tokenExpiresAt: Date,
  now: Date,
  ttlSeconds: number,
): UserSession {
  return {
    session_id: sessionId,
    user_id: null,
    created_at: now,
    expires_at: lifetime(now, ttlSeconds),
    session_data: JSON.stringify({ kind: 'guest', token_expires_at: tokenExpiresAt.toISOString() }),
  };
}

/** The row of a user's login session, first seen now. */
export function loginSession(userId: string, sid: string, now: Date, ttlSeconds: number): UserSession {
  return {
    session_id: sessionIdOfSid(sid),
    user_id: userId,
    created_at: now,
    expires_at: lifetime(now, ttlSeconds),
    session_data: JSON.stringify({ kind: 'user', sid }),
  };
}

/**
 * The login sessions this instance has recorded, so a session costs one LWT per instance, not one
 * per request. Bounded: beyond `maxEntries` the oldest are forgotten (a forgotten session costs
 * one more LWT, which finds the row and writes nothing new). An entry lasts as long as the row.
 */
export class SeenSessions {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  has(sid: string, now: Date): boolean {
    const t = this.until.get(sid);
    if (t === undefined) return false;
    if (t > now.getTime()) return true;
    this.until.delete(sid);
    return false;
  }

  add(sid: string, now: Date): void {
    this.until.delete(sid);
    this.until.set(sid, now.getTime() + this.ttlMs);
    if (this.until.size > this.maxEntries) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
  }
}
