/**
 * `user_sessions` (seed 003, ADR 0061): one partition per session, a random uuid — no hot
 * partition. The table's default TTL is the seed's 24 h; every write also says `USING TTL
 * USER_SESSION_TTL_SECONDS`, so a deployment (or a test) may shorten it.
 */
export const userSessionsSchema = (): string[] => [
  `CREATE TABLE IF NOT EXISTS user_sessions (
     session_id uuid PRIMARY KEY, user_id text, created_at timestamp, expires_at timestamp, session_data text
   ) WITH default_time_to_live = 86400`,
];
