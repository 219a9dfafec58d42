import { AppError, type Caller } from '@mw/platform';
import type { CartOwner } from './cart';

/** The owner a verified caller stands for: the token's subject or the guest session, never an id from the client. */
export function ownerOf(caller: Caller): CartOwner {
  switch (caller.kind) {
    case 'user':
      return { kind: 'user', userId: caller.id };
    case 'guest':
      return { kind: 'guest', sessionId: caller.sessionId };
    case 'anonymous':
      // The edge guard lets no anonymous caller reach a cart operation; refuse rather than guess.
      throw new AppError(
        'AUTH.UNAUTHENTICATED',
        'unauthenticated',
        'this operation needs a bearer access token or an x-guest-session header',
      );
  }
}

/** The signed-in user behind an operation that only users may call. */
export function userIdOf(caller: Caller): string {
  if (caller.kind !== 'user')
    throw new AppError(
      'AUTH.UNAUTHENTICATED',
      'unauthenticated',
      'this operation needs a bearer access token',
    );
  return caller.id;
}
