import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import type { EnvelopeOf } from '@mw/contracts';
import { AppError, LOGGER, Metrics } from '@mw/platform';
import { CARTS_CONFIG } from '../config.token';
import type { CqlStatement } from '../cql';
import type { CartsConfig } from '../config';
import {
  type ActivityEvent,
  type ActivityType,
  collectPage,
  DailyQuota,
  dayIndexTtlSeconds,
  dayOf,
  decodeCursor,
  encodeCursor,
  eventTtlSeconds,
  orderActivity,
  type Position,
} from './activity';
import { ActivityPage, activityView } from './activity-view';
import { ActivityRepository } from './activity.repository';

/** Rows read at most for one page (a type filter may need to skip many). */
const SCAN_BUDGET = 1_000;
/** Rows per round trip while a type filter skips the other types. */
const FILTERED_FETCH_SIZE = 200;

/**
 * Records and reads user activity (ADR 0061). Writers call `record` after their own write
 * succeeded; a failure propagates (the HTTP request answers 5xx, the Kafka message is retried), and
 * the retry writes the same row again or a row of its own.
 */
@Injectable()
export class ActivityService {
  private readonly quota: DailyQuota;
  private readonly dropped: Counter<'type' | 'reason'>;

  constructor(
    private readonly repo: ActivityRepository,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.quota = new DailyQuota(config.USER_EVENTS_MAX_PER_USER_DAY);
    this.dropped = new Counter({
      name: 'carts_user_events_dropped_total',
      help: 'User activity events not written: past their retention, or over the per-user daily cap',
      labelNames: ['type', 'reason'],
      registers: [metrics.registry],
    });
  }

  /** An order event of orders.orders.v1 as activity: one row per message, whatever the redeliveries. */
  onOrderEvent(e: EnvelopeOf<'orders.orders.v1'>): Promise<void> {
    return this.record(orderActivity(e));
  }

  /** `prepare` of an order event's row. */
  prepareOrderEvent(e: EnvelopeOf<'orders.orders.v1'>): Promise<CqlStatement | null> {
    return this.prepare(orderActivity(e));
  }

  async record(event: ActivityEvent, now = new Date()): Promise<void> {
    const insert = await this.prepare(event, now);
    if (insert) await this.repo.write(insert);
  }

  /**
   * Everything `record` does but the event's own write, which it answers (null when the event is
   * not to be written: past its retention, or over the daily cap). A caller that writes something
   * else right after its own write sends the two in one unlogged batch: one request instead of two.
   */
  async prepare(event: ActivityEvent, now = new Date()): Promise<CqlStatement | null> {
    const retention = this.config.USER_EVENTS_TTL_SECONDS;
    const ttl = eventTtlSeconds(event.event_time, now, retention);
    if (ttl === 0) {
      this.dropped.inc({ type: event.event_type, reason: 'past_retention' });
      this.logger.info(
        { user_id: event.user_id, event_type: event.event_type, event_id: event.event_id },
        'activity event older than its retention; not written',
      );
      return null;
    }
    const day = dayOf(event.event_time);
    const verdict = await this.quota.take(event.user_id, day, async () => {
      // The day index first: a crash after it leaves an empty day (skipped on read), never an unlisted event.
      await this.repo.indexDay(event.user_id, day, dayIndexTtlSeconds(day, now, retention));
      return this.repo.countOfDay(event.user_id, day);
    });
    if (verdict !== 'ok') {
      this.dropped.inc({ type: event.event_type, reason: 'daily_cap' });
      if (verdict === 'refused-first') {
        this.logger.warn(
          { user_id: event.user_id, event_date: day, cap: this.config.USER_EVENTS_MAX_PER_USER_DAY },
          'user reached the daily activity cap; further events of the day are not recorded',
        );
      }
      return null;
    }
    return this.repo.insertStatement(event, ttl);
  }

  /** Writes what `prepare` answered, alone (when no write of the caller's could carry it). */
  async write(insert: CqlStatement): Promise<void> {
    await this.repo.write(insert);
  }

  /** One page of `userId`'s activity, newest first, continuing after `cursor` when given. */
  async page(
    userId: string,
    q: { limit: number; type?: ActivityType | undefined; cursor?: string | undefined },
  ): Promise<ActivityPage> {
    const from = q.cursor === undefined ? null : this.positionOf(q.cursor, userId);
    // Without a filter a page needs limit + 1 rows; with one, larger round trips skip other types faster.
    const fetchSize = q.type === undefined ? q.limit + 1 : FILTERED_FETCH_SIZE;
    const { items, next } = await collectPage(this.repo.newestFirst(userId, from, fetchSize), {
      limit: q.limit,
      type: q.type,
      scanBudget: SCAN_BUDGET,
    });
    return {
      user_id: userId,
      items: items.map(activityView),
      next_cursor: next ? encodeCursor(userId, next) : null,
    };
  }

  private positionOf(cursor: string, userId: string): Position {
    const d = decodeCursor(cursor, userId);
    if (d.ok) return d.position;
    // Matches the documented pattern but is not a position this service issued for this user (ADR 0007: 422).
    if (d.problem === 'another-user') {
      throw AppError.unprocessable(
        [{ field: 'query.cursor', message: "continues another user's activity; start again without cursor" }],
        'CARTS.FOREIGN_CURSOR',
      );
    }
    throw AppError.unprocessable(
      [
        {
          field: 'query.cursor',
          message: 'not a cursor of this service; pass next_cursor of the previous page',
        },
      ],
      'CARTS.INVALID_CURSOR',
    );
  }
}
