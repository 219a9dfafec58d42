import { Controller, Headers, Inject } from '@nestjs/common';
import {
  AppError,
  type Caller,
  CurrentCaller,
  Endpoint,
  GUEST_SESSION_HEADER,
  GuestSessions,
} from '@mw/platform';
import { userIdOf } from '../carts/owner';
import { GUEST_SESSIONS } from '../sessions/guest-sessions';
import { mergeGuestCarts } from './merge.endpoints';
import { MergeAnswer, MergeService } from './merge.service';

@Controller()
export class MergeController {
  constructor(
    private readonly merges: MergeService,
    @Inject(GUEST_SESSIONS) private readonly sessions: GuestSessions,
  ) {}

  /** The user is the token's subject; the guest carts are those of the session the signed header proves. */
  @Endpoint(mergeGuestCarts)
  merge(
    @CurrentCaller() caller: Caller,
    @Headers(GUEST_SESSION_HEADER) header: string | undefined,
  ): Promise<MergeAnswer> {
    const userId = userIdOf(caller);
    if (header === undefined || header === '') {
      // The guest session is a credential here (it proves the guest carts are the caller's): missing is a 401.
      const message = 'the guest session whose carts to merge is required';
      throw new AppError('AUTH.GUEST_SESSION_REQUIRED', 'unauthenticated', message, [
        { field: `headers.${GUEST_SESSION_HEADER}`, message },
      ]);
    }
    return this.merges.mergeSession(userId, this.sessions.verify(header).sessionId);
  }
}
