/**
 * User activity in Cassandra (seed 003, ADR 0061).
 *
 * `user_events`: one partition per (user, UTC day), newest first. `event_id` follows the seed's
 * (event_time, event_type) as a last clustering column: two events of one user, type and
 * millisecond are two rows, and every writer's deterministic id makes a duplicate overwrite its
 * row. Rows are written `USING TTL` (retention counted from event_time); TWCS with one-day windows
 * drops whole expired SSTables instead of compacting tombstones.
 *
 * `user_activity_days`: the days a user has events, newest first, so a page reads the days that
 * exist instead of probing every day back to the retention limit. Its rows outlive their day's events.
 */
export const activitySchema = (retentionSeconds: number): string[] => [
  `CREATE TABLE IF NOT EXISTS user_events (
     user_id text, event_date date, event_time timestamp, event_type text, event_id text,
     resource_id text, details text,
     PRIMARY KEY ((user_id, event_date), event_time, event_type, event_id)
   ) WITH CLUSTERING ORDER BY (event_time DESC, event_type ASC, event_id ASC)
     AND default_time_to_live = ${retentionSeconds}
     AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}`,
  `CREATE TABLE IF NOT EXISTS user_activity_days (
     user_id text, event_date date,
     PRIMARY KEY ((user_id), event_date)
   ) WITH CLUSTERING ORDER BY (event_date DESC) AND default_time_to_live = ${retentionSeconds + 86_400}`,
];
