import { AppError, type Caller, type Role } from '@mw/platform';
import { historyOwner, mayReadOrder } from './order-access';

const user = (id: string, ...roles: Role[]): Caller => ({ kind: 'user', id, roles: new Set(roles) });
const alice = user('alice-id', 'customer');
const bob = user('bob-id', 'customer');
const carol = user('carol-id', 'catalog_manager');
const sue = user('sue-id', 'support');
const otto = user('otto-id', 'operator');

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return `${e.code} ${e.kind} ${e.errors.map((p) => p.field).join(',')}`;
    throw e;
  }
  return 'allowed';
}

describe('who may read an order', () => {
  it('its customer, support and operator; nobody else (they get the 404 of a missing order)', () => {
    expect(mayReadOrder(alice, 'alice-id')).toBe(true);
    expect(mayReadOrder(sue, 'alice-id')).toBe(true);
    expect(mayReadOrder(otto, 'alice-id')).toBe(true);
    expect(mayReadOrder(bob, 'alice-id')).toBe(false);
    expect(mayReadOrder(carol, 'alice-id')).toBe(false);
    expect(mayReadOrder({ kind: 'guest', sessionId: 'alice-id' }, 'alice-id')).toBe(false);
    expect(mayReadOrder({ kind: 'anonymous' }, 'alice-id')).toBe(false);
  });

  it('an own order needs the customer role (a back-office account is not a buyer)', () => {
    expect(mayReadOrder(user('carol-id', 'catalog_manager'), 'carol-id')).toBe(false);
    expect(mayReadOrder(user('carol-id', 'catalog_manager', 'customer'), 'carol-id')).toBe(true);
  });
});

describe('whose history is listed', () => {
  it('a customer: their own, and naming anybody (even themself) is 403 on query.user_id', () => {
    expect(historyOwner(alice, undefined)).toBe('alice-id');
    expect(refusal(() => historyOwner(alice, 'bob-id'))).toBe('AUTH.FORBIDDEN forbidden query.user_id');
    expect(refusal(() => historyOwner(alice, 'alice-id'))).toBe('AUTH.FORBIDDEN forbidden query.user_id');
  });

  it('support and operator: the named user, else their own', () => {
    expect(historyOwner(sue, 'alice-id')).toBe('alice-id');
    expect(historyOwner(otto, 'bob-id')).toBe('bob-id');
    expect(historyOwner(sue, undefined)).toBe('sue-id');
  });

  it('no signed-in user: 401', () => {
    expect(refusal(() => historyOwner({ kind: 'anonymous' }, undefined))).toBe('AUTH.UNAUTHENTICATED unauthenticated ');
  });
});
