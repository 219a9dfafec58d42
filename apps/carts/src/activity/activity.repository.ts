import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import type { CqlStatement } from '../cql';
import { ACTIVITY_TYPES, type ActivityEvent, type ActivityType, dayOf, type Position } from './activity';

const { LocalDate } = types;
const COLUMNS = 'event_time, event_type, event_id, resource_id, details';
/** Day-index rows read per page: the retention is at most 400 days. */
const MAX_DAYS = 500;

/** Cassandra I/O of `user_events` and `user_activity_days` (ADR 0061). */
@Injectable()
export class ActivityRepository {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  /** Sends one statement of this repository's (`insertStatement`) on its own. */
  async write(s: CqlStatement): Promise<void> {
    await this.db.execute(s.query, s.params, { prepare: true });
  }

  /** The insert of an event's row, for a caller that sends it in a batch with writes of its own. */
  insertStatement(e: ActivityEvent, ttlSeconds: number): CqlStatement {
    return {
      query: `INSERT INTO user_events (user_id, event_date, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
      params: [
        e.user_id,
        LocalDate.fromString(dayOf(e.event_time)),
        e.event_time,
        e.event_type,
        e.event_id,
        e.resource_id,
        JSON.stringify(e.details),
        ttlSeconds,
      ],
    };
  }

  /** Records that `userId` has events on `day` (before the first event of the day is written). */
  async indexDay(userId: string, day: string, ttlSeconds: number): Promise<void> {
    await this.db.execute(
      `INSERT INTO user_activity_days (user_id, event_date) VALUES (?, ?) USING TTL ?`,
      [userId, LocalDate.fromString(day), ttlSeconds],
      { prepare: true },
    );
  }

  /** Rows the (user, day) partition holds (bounded by the daily cap). */
  async countOfDay(userId: string, day: string): Promise<number> {
    const rs = await this.db.execute(
      `SELECT COUNT(*) AS n FROM user_events WHERE user_id = ? AND event_date = ?`,
      [userId, LocalDate.fromString(day)],
      { prepare: true },
    );
    return (rs.first()?.get('n') as types.Long | undefined)?.toNumber() ?? 0;
  }

  /**
   * A user's events newest first, strictly after `from` when given: the days from the day index
   * (newest first, none before the retention), each day's partition in its clustering order.
   * Lazy: rows are fetched `fetchSize` at a time, only as far as the caller reads.
   */
  async *newestFirst(
    userId: string,
    from: Position | null,
    fetchSize: number,
  ): AsyncGenerator<ActivityEvent> {
    for (const day of await this.days(userId, from?.day)) {
      const pk = [userId, LocalDate.fromString(day)];
      const where = `SELECT ${COLUMNS} FROM user_events WHERE user_id = ? AND event_date = ?`;
      if (from && day === from.day) {
        const at = new Date(from.time);
        // the same millisecond, later in (event_type, event_id) order; then every older millisecond
        yield* this.rows(
          userId,
          `${where} AND (event_time, event_type, event_id) > (?, ?, ?) AND (event_time) <= (?)`,
          [...pk, at, from.type, from.id, at],
          fetchSize,
        );
        yield* this.rows(userId, `${where} AND event_time < ?`, [...pk, at], fetchSize);
      } else {
        yield* this.rows(userId, where, pk, fetchSize);
      }
    }
  }

  private async days(userId: string, notAfter: string | undefined): Promise<string[]> {
    const rs = notAfter
      ? await this.db.execute(
          `SELECT event_date FROM user_activity_days WHERE user_id = ? AND event_date <= ? LIMIT ?`,
          [userId, LocalDate.fromString(notAfter), MAX_DAYS],
          { prepare: true },
        )
      : await this.db.execute(
          `SELECT event_date FROM user_activity_days WHERE user_id = ? LIMIT ?`,
          [userId, MAX_DAYS],
          { prepare: true },
        );
    return rs.rows.map((r) => (r.get('event_date') as types.LocalDate).toString());
  }

  /** Rows of one partition slice; a type this version does not know (written by a newer one) is skipped. */
  private async *rows(
    userId: string,
    query: string,
    params: unknown[],
    fetchSize: number,
  ): AsyncGenerator<ActivityEvent> {
    const rs = await this.db.execute(query, params, { prepare: true, fetchSize });
    for await (const row of rs) {
      const type = row.get('event_type') as string;
      if (isActivityType(type)) yield toEvent(userId, type, row);
    }
  }
}

const isActivityType = (t: string): t is ActivityType => (ACTIVITY_TYPES as readonly string[]).includes(t);

function toEvent(userId: string, type: ActivityType, row: types.Row): ActivityEvent {
  return {
    user_id: userId,
    event_time: row.get('event_time') as Date,
    event_type: type,
    event_id: row.get('event_id') as string,
    resource_id: (row.get('resource_id') as string | null) ?? null,
    details: parseDetails(row.get('details') as string | null),
  };
}

function parseDetails(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
