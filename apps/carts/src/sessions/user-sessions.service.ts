import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { type Caller, LOGGER } from '@mw/platform';
import { cartActivity } from '../activity/activity';
import { ActivityService } from '../activity/activity.service';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { guestSession, loginSession, SeenSessions } from './user-sessions';
import { UserSessionsRepository } from './user-sessions.repository';

/**
 * Writes `user_sessions` rows and LOGIN events (ADR 0061). A login is the first request carts sees
 * with a new Keycloak session (`sid`): the row is written with an LWT that exactly one instance
 * wins, and the LOGIN event is keyed by the session and the row's created_at, so however many
 * instances (or retries after a crash) write it, it is one row.
 */
@Injectable()
export class UserSessionsService {
  private readonly seen: SeenSessions;

  constructor(
    private readonly repo: UserSessionsRepository,
    private readonly activity: ActivityService,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.seen = new SeenSessions(config.USER_SESSION_TTL_SECONDS * 1000);
  }

  private get ttl(): number {
    return this.config.USER_SESSION_TTL_SECONDS;
  }

  /** POST /guest-sessions issued a session: its row, user_id null. */
  async guestStarted(sessionId: string, tokenExpiresAt: Date): Promise<void> {
    await this.repo.insert(guestSession(sessionId, tokenExpiresAt, new Date(), this.ttl), this.ttl);
  }

  /**
   * A signed-in request: the first one of a Keycloak session records the session and its LOGIN.
   * The session is remembered only after both writes, so a failure (or a crash) between them is
   * repaired by the next request of the session, which rewrites the same LOGIN row.
   */
  async signedIn(caller: Caller): Promise<void> {
    if (caller.kind !== 'user' || !caller.sid) return;
    const now = new Date();
    if (this.seen.has(caller.sid, now)) return;
    const { applied, stored } = await this.repo.insertIfAbsent(
      loginSession(caller.id, caller.sid, now, this.ttl),
      this.ttl,
    );
    if (stored.user_id !== caller.id) {
      // The same session id under another user cannot come from one identity provider: record nothing for it.
      this.logger.warn(
        { session_id: stored.session_id, user_id: caller.id },
        'login session id already recorded for another user; no LOGIN',
      );
    } else {
      await this.activity.record(
        cartActivity.login(caller.id, stored.session_id, caller.sid, stored.created_at),
      );
      if (applied)
        this.logger.info(
          { user_id: caller.id, session_id: stored.session_id },
          'user signed in (new login session)',
        );
    }
    this.seen.add(caller.sid, now);
  }
}
