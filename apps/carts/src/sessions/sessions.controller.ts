import { Controller, Inject } from '@nestjs/common';
import { z } from 'zod';
import { Endpoint, GuestSessions } from '@mw/platform';
import { GUEST_SESSIONS } from './guest-sessions';
import { GuestSessionBody, issueGuestSession } from './sessions.endpoints';

@Controller()
export class SessionsController {
  constructor(@Inject(GUEST_SESSIONS) private readonly sessions: GuestSessions) {}

  @Endpoint(issueGuestSession)
  issue(): z.output<typeof GuestSessionBody> {
    const s = this.sessions.issue();
    return {
      guest_session: s.token,
      session_id: s.sessionId,
      expires_at: new Date(s.expiresAt * 1000).toISOString(),
    };
  }
}
