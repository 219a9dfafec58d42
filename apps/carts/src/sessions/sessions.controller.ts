import { Controller, Inject } from '@nestjs/common';
import { z } from 'zod';
import { Endpoint, GuestSessions } from '@mw/platform';
import { GUEST_SESSIONS } from './guest-sessions';
import { GuestSessionBody, issueGuestSession } from './sessions.endpoints';
import { UserSessionsService } from './user-sessions.service';

@Controller()
export class SessionsController {
  constructor(
    @Inject(GUEST_SESSIONS) private readonly sessions: GuestSessions,
    private readonly userSessions: UserSessionsService,
  ) {}

  @Endpoint(issueGuestSession)
  async issue(): Promise<z.output<typeof GuestSessionBody>> {
    const s = this.sessions.issue();
    const expiresAt = new Date(s.expiresAt * 1000);
    await this.userSessions.guestStarted(s.sessionId, expiresAt);
    return { guest_session: s.token, session_id: s.sessionId, expires_at: expiresAt.toISOString() };
  }
}
