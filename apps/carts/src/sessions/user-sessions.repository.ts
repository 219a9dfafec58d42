import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import type { UserSession } from './user-sessions';

const { Uuid } = types;
const INSERT = `INSERT INTO user_sessions (session_id, user_id, created_at, expires_at, session_data) VALUES (?, ?, ?, ?, ?)`;

/** Cassandra I/O of `user_sessions` (ADR 0061). */
@Injectable()
export class UserSessionsRepository {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  /** A new session under a fresh random id (a guest session): a plain write. */
  async insert(s: UserSession, ttlSeconds: number): Promise<void> {
    await this.db.execute(`${INSERT} USING TTL ?`, [...columns(s), ttlSeconds], { prepare: true });
  }

  /**
   * Writes the session unless a row with its id exists (LWT), and returns the row that is stored:
   * this one, or the one written first — by another instance, or before a restart.
   */
  async insertIfAbsent(
    s: UserSession,
    ttlSeconds: number,
  ): Promise<{ applied: boolean; stored: UserSession }> {
    const rs = await this.db.execute(`${INSERT} IF NOT EXISTS USING TTL ?`, [...columns(s), ttlSeconds], {
      prepare: true,
    });
    const row = rs.first();
    if (rs.wasApplied() || !row) return { applied: true, stored: s };
    return { applied: false, stored: toSession(row) };
  }

  async get(sessionId: string): Promise<UserSession | null> {
    const rs = await this.db.execute(
      `SELECT * FROM user_sessions WHERE session_id = ?`,
      [Uuid.fromString(sessionId)],
      { prepare: true },
    );
    const row = rs.first();
    return row ? toSession(row) : null;
  }
}

const columns = (s: UserSession): unknown[] => [
  Uuid.fromString(s.session_id),
  s.user_id,
  s.created_at,
  s.expires_at,
  s.session_data,
];

function toSession(row: types.Row): UserSession {
  return {
    session_id: String(row.get('session_id')),
    user_id: (row.get('user_id') as string | null) ?? null,
    created_at: row.get('created_at') as Date,
    expires_at: row.get('expires_at') as Date,
    session_data: (row.get('session_data') as string | null) ?? '{}',
  };
}
