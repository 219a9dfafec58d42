import { AppError, type Caller, hasRole, type Role } from '@mw/platform';

/** Roles that read any user's activity (ADR 0061), as they read any order (ADR 0007). */
export const ACTIVITY_READERS: readonly Role[] = ['support', 'operator'];

/**
 * Whose activity the caller reads: a customer their own (the token's subject — the client names
 * nobody); support and operator anybody's with `user_id`, their own without it. A customer naming
 * a user is refused with 403 AUTH.FORBIDDEN, whoever the user is (exactly as GET /orders).
 */
export function activityOwner(caller: Caller, requested: string | undefined): string {
  if (caller.kind !== 'user') {
    // the edge guard lets only signed-in users reach the activity
    throw new AppError(
      'AUTH.UNAUTHENTICATED',
      'unauthenticated',
      'this operation needs a bearer access token',
    );
  }
  if (hasRole(caller, ...ACTIVITY_READERS)) return requested ?? caller.id;
  if (requested !== undefined) {
    const message =
      'only support and operator may name a user; a customer reads their own activity without user_id';
    throw new AppError('AUTH.FORBIDDEN', 'forbidden', message, [{ field: 'query.user_id', message }]);
  }
  return caller.id;
}
