import { AppError, type Caller, hasRole, type Role } from '@mw/platform';

/** Roles that read any customer's orders (ADR 0007): support answers customers, operators run the system. */
export const ORDER_READERS: readonly Role[] = ['support', 'operator'];

/**
 * Whether the caller may see an order of `ownerId`: the customer it belongs to (the token's
 * subject is the order's user id), or support / operator. Anyone else gets the same 404 as for
 * an order that does not exist, so an id never confirms that somebody else's order exists.
 */
export function mayReadOrder(caller: Caller, ownerId: string): boolean {
  if (hasRole(caller, ...ORDER_READERS)) return true;
  return caller.kind === 'user' && caller.roles.has('customer') && caller.id === ownerId;
}

/**
 * Whose order history the caller lists: a customer their own (the token's subject — the client
 * names nobody); support and operator anybody's with `user_id`, their own without it. A customer
 * naming a user is refused with 403 AUTH.FORBIDDEN, whoever the user is.
 */
export function historyOwner(caller: Caller, requested: string | undefined): string {
  if (caller.kind !== 'user') {
    // the edge guard lets only signed-in users reach the history
    throw new AppError(
      'AUTH.UNAUTHENTICATED',
      'unauthenticated',
      'this operation needs a bearer access token',
    );
  }
  if (hasRole(caller, ...ORDER_READERS)) return requested ?? caller.id;
  if (requested !== undefined) {
    const message =
      'only support and operator may name a user; a customer lists their own orders without user_id';
    throw new AppError('AUTH.FORBIDDEN', 'forbidden', message, [{ field: 'query.user_id', message }]);
  }
  return caller.id;
}

/** Roles that cancel on a customer's behalf (ADR 0007): support answers customers. */
export const ORDER_CANCELLERS: readonly Role[] = ['support'];

/**
 * Whether the caller may cancel an order of `ownerId`: the customer it belongs to, or support.
 * Anyone else gets the 404 of a missing order (an operator runs deliveries, not customers' orders).
 */
export function mayCancelOrder(caller: Caller, ownerId: string): boolean {
  if (hasRole(caller, ...ORDER_CANCELLERS)) return true;
  return caller.kind === 'user' && caller.roles.has('customer') && caller.id === ownerId;
}
