import { z } from 'zod';
import { AppError, httpStatusOf } from '../errors/app-error';
import { access, decideAccess, type Caller } from './access';
import { endpoint, validateInput } from './endpoint';
import { GuestSessions } from './guest-session';
import { addressKeyOf } from './client-address';
import { allowedMethods } from './method-not-allowed';
import { RateLimiter } from './rate-limiter';
import { bearerTokenOf, rolesOf } from './token-verifier';

const alice: Caller = { kind: 'user', id: 'a', roles: new Set(['customer']) };
const carol: Caller = { kind: 'user', id: 'c', roles: new Set(['catalog_manager']) };
const guest: Caller = { kind: 'guest', sessionId: 's' };

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.errors.map((p) => p.field);
    throw e;
  }
  throw new Error('accepted');
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return `${e.code} ${e.kind}`;
    throw e;
  }
  return 'no error';
}

describe('access rules', () => {
  it('public lets anyone in; user needs a token; roles need one of them; guests only where allowed', () => {
    expect(decideAccess(access.public, { kind: 'anonymous' })).toBe('allow');
    expect(decideAccess(access.anyUser, { kind: 'anonymous' })).toBe('unauthenticated');
    expect(decideAccess(access.anyUser, guest)).toBe('unauthenticated');
    expect(decideAccess(access.anyUser, alice)).toBe('allow');
    expect(decideAccess(access.roles('catalog_manager'), alice)).toBe('forbidden');
    expect(decideAccess(access.roles('catalog_manager', 'stock_manager'), carol)).toBe('allow');
    expect(decideAccess(access.userOrGuest, guest)).toBe('allow');
    expect(decideAccess(access.userOrGuest, { kind: 'anonymous' })).toBe('unauthenticated');
  });

  it('reads realm roles from realm_access.roles and ignores unknown names', () => {
    expect([
      ...rolesOf({ realm_access: { roles: ['customer', 'offline_access', 'operator'] } } as never),
    ]).toEqual(['customer', 'operator']);
    expect(rolesOf({}).size).toBe(0);
    expect(rolesOf({ realm_access: { roles: 'customer' } } as never).size).toBe(0);
  });

  it('takes only "Bearer <JWT>" from the Authorization header', () => {
    expect(bearerTokenOf(undefined)).toBeUndefined();
    expect(bearerTokenOf('Bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(codeOf(() => bearerTokenOf('Basic dXNlcjpwYXNz'))).toBe(
      'AUTH.MALFORMED_AUTHORIZATION unauthenticated',
    );
    expect(codeOf(() => bearerTokenOf('Bearer not-a-jwt'))).toBe(
      'AUTH.MALFORMED_AUTHORIZATION unauthenticated',
    );
  });
});

describe('guest sessions', () => {
  const secret = 'x'.repeat(32);
  let now = 1_800_000_000_000;
  const sessions = new GuestSessions(secret, 3600, () => now);

  it('verifies what it issued, refuses tampering, another secret and expiry', () => {
    const issued = sessions.issue();
    expect(sessions.verify(issued.token).sessionId).toBe(issued.sessionId);
    const otherId = issued.token.replace(issued.sessionId, '00000000-0000-4000-8000-000000000000');
    expect(codeOf(() => sessions.verify(otherId))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
    const longer = issued.token.replace(`.${issued.expiresAt}.`, `.${issued.expiresAt + 999_999}.`);
    expect(codeOf(() => sessions.verify(longer))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
    expect(codeOf(() => new GuestSessions('y'.repeat(32), 3600, () => now).verify(issued.token))).toBe(
      'AUTH.INVALID_GUEST_SESSION unauthenticated',
    );
    expect(codeOf(() => sessions.verify('gs1.garbage'))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
    now += 3600_000;
    expect(codeOf(() => sessions.verify(issued.token))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
  });

  it('refuses a short secret', () => {
    expect(() => new GuestSessions('short', 60)).toThrow(/at least 32/);
  });

  it('rotates keys: signs with the current key (its id in the token), verifies the previous one, refuses a retired one', () => {
    const k1 = { id: 'k1', secret: 'a'.repeat(32) };
    const k2 = { id: 'k2', secret: 'b'.repeat(32) };
    const before = new GuestSessions({ current: k1 }, 3600, () => now).issue();
    expect(before.token.startsWith('gs2.k1.')).toBe(true);
    const rotating = new GuestSessions({ current: k2, previous: k1 }, 3600, () => now);
    const after = rotating.issue();
    expect(after.token.startsWith('gs2.k2.')).toBe(true);
    expect(rotating.verify(before.token).sessionId).toBe(before.sessionId);
    expect(rotating.verify(after.token).sessionId).toBe(after.sessionId);
    const retired = new GuestSessions({ current: k2 }, 3600, () => now);
    expect(codeOf(() => retired.verify(before.token))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
    // a token naming a key id cannot borrow another key's signature
    const relabelled = before.token.replace('gs2.k1.', 'gs2.k2.');
    expect(codeOf(() => rotating.verify(relabelled))).toBe('AUTH.INVALID_GUEST_SESSION unauthenticated');
    expect(() => new GuestSessions({ current: k1, previous: { ...k2, id: 'k1' } }, 60)).toThrow(
      /id of its own/,
    );
  });
});

describe('rate limiter', () => {
  it('allows the budget per minute per key, then answers with a retry delay; refills over time', () => {
    let now = 0;
    const limiter = new RateLimiter(3, 100, () => now);
    expect([1, 2, 3].map(() => limiter.take('u').ok)).toEqual([true, true, true]);
    const refused = limiter.take('u');
    expect(refused).toEqual({ ok: false, reason: 'limited', retryAfterSeconds: 20 });
    expect(limiter.take('other').ok).toBe(true);
    now += 20_000;
    expect(limiter.take('u').ok).toBe(true);
    expect(limiter.take('u').ok).toBe(false);
  });

  it('a full table refuses new keys instead of evicting a throttled one; fully refilled buckets make room', () => {
    let now = 0;
    const limiter = new RateLimiter(1, 2, () => now);
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(limiter.take('b')).toEqual({ ok: true });
    expect(limiter.take('c')).toEqual({ ok: false, reason: 'full', retryAfterSeconds: 60 });
    expect(limiter.take('a')).toMatchObject({ ok: false, reason: 'limited' }); // not reset by the flood
    now += 30_000;
    expect(limiter.take('c')).toMatchObject({ ok: false, reason: 'full' }); // nobody refilled yet
    now += 31_000; // a and b are full again: the same as no bucket, so they may go
    expect(limiter.take('c')).toEqual({ ok: true });
    expect(limiter.size).toBeLessThanOrEqual(2);
  });

  it('a window other than a minute (guest sessions per hour)', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 100, () => now, 3_600_000);
    expect([limiter.take('ip'), limiter.take('ip')].every((v) => v.ok)).toBe(true);
    expect(limiter.take('ip')).toEqual({ ok: false, reason: 'limited', retryAfterSeconds: 1800 });
    now += 1_800_000;
    expect(limiter.take('ip').ok).toBe(true);
  });
});

describe('client address keys', () => {
  it('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    expect(addressKeyOf('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKeyOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKeyOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(addressKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKeyOf('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    expect(addressKeyOf(undefined)).toBe('unknown');
  });
});

describe('declared input', () => {
  const spec = endpoint({
    operationId: 'putItem',
    method: 'PUT',
    path: '/carts/:id/items/:product_id',
    tag: 't',
    summary: 's',
    access: access.userOrGuest,
    params: z.strictObject({ id: z.uuid(), product_id: z.string().regex(/^[0-9a-f]{24}$/) }),
    body: z.strictObject({ qty: z.number().int().min(1) }),
    unknownFieldCode: (k) => (k === 'unit_price' ? 'CARTS.CLIENT_PRICE_REJECTED' : undefined),
    unknownFieldMessage: 'prices come from the catalog',
    response: { status: 200, description: 'ok' },
  });
  const params = { id: '6f1c1a52-3b7e-4c55-9c1d-8d8f6c1e2a10', product_id: 'a'.repeat(24) };

  it('validates params and body with the declared schemas, naming the field', () => {
    expect(validateInput(spec, { params, query: {}, body: { qty: 2 } }).body).toEqual({ qty: 2 });
    expect(codeOf(() => validateInput(spec, { params, query: {}, body: { qty: 1.5 } }))).toBe(
      'COMMON.VALIDATION_FAILED validation',
    );
    expect(
      codeOf(() => validateInput(spec, { params: { ...params, id: 'x' }, query: {}, body: { qty: 1 } })),
    ).toBe('COMMON.VALIDATION_FAILED validation');
  });

  it('reads only the declared headers: a missing If-Match is 428, a malformed header or a missing key 400 naming it', () => {
    const conditional = endpoint({
      operationId: 'setLevel',
      method: 'PUT',
      path: '/stock/:id',
      tag: 't',
      summary: 's',
      access: access.anyUser,
      headers: z.object({ 'if-match': z.string().regex(/^"\d{1,15}"$/), 'idempotency-key': z.string().min(1).optional() }),
      response: { status: 200, description: 'ok' },
    });
    const keyed = endpoint({ ...conditional, headers: z.object({ 'idempotency-key': z.string().regex(/^[a-z0-9-]{1,8}$/) }) });
    const req = (headers: Record<string, string>) => ({ params: {}, query: {}, body: undefined, headers });
    expect(validateInput(conditional, req({ 'if-match': '"7"', authorization: 'Bearer x' })).headers).toEqual({ 'if-match': '"7"' });
    expect(codeOf(() => validateInput(conditional, req({})))).toBe('COMMON.PRECONDITION_REQUIRED precondition_required');
    expect(fieldsOf(() => validateInput(conditional, req({})))).toEqual(['headers.if-match']);
    expect(codeOf(() => validateInput(conditional, req({ 'if-match': 'W/"7"' })))).toBe('COMMON.VALIDATION_FAILED validation');
    expect(fieldsOf(() => validateInput(conditional, req({ 'if-match': '"1", "2"' })))).toEqual(['headers.if-match']);
    expect(codeOf(() => validateInput(keyed, req({})))).toBe('COMMON.VALIDATION_FAILED validation');
    expect(fieldsOf(() => validateInput(keyed, req({})))).toEqual(['headers.idempotency-key']);
    expect(httpStatusOf('precondition_failed')).toBe(412);
    expect(httpStatusOf('precondition_required')).toBe(428);
  });

  it('names unknown body fields one by one, with the declared code for a client price', () => {
    try {
      validateInput(spec, { params, query: {}, body: { qty: 1, unit_price: 1, $where: 'x' } });
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      const err = e as AppError;
      expect(err.code).toBe('CARTS.CLIENT_PRICE_REJECTED');
      expect(err.errors).toEqual([
        { field: 'body.unit_price', message: 'prices come from the catalog' },
        { field: 'body.$where', message: 'unknown field' },
      ]);
    }
  });
});

describe('405 for undeclared methods', () => {
  const specs = [
    { method: 'GET', path: '/carts/:id' },
    { method: 'PUT', path: '/carts/:id/items/:product_id' },
    { method: 'DELETE', path: '/carts/:id/items/:product_id' },
    { method: 'POST', path: '/carts' },
    { method: 'POST', path: '/carts/merge' },
  ] as never;

  it('lists the methods declared for a path, none for an unknown path', () => {
    expect(allowedMethods(specs, '/carts/abc')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods(specs, '/carts/abc/items/p1')).toEqual(['DELETE', 'PUT']);
    expect(allowedMethods(specs, '/carts')).toEqual(['POST']);
    expect(allowedMethods(specs, '/nothing/here')).toEqual([]);
    expect(allowedMethods(specs, '/carts/abc/items')).toEqual([]);
    // a literal path is its own resource (as the document lists it), not an id of /carts/:id
    expect(allowedMethods(specs, '/carts/merge')).toEqual(['POST']);
  });
});

describe('400 or 422', () => {
  const spec = endpoint({
    operationId: 'setPrice',
    method: 'PUT',
    path: '/p/:id',
    tag: 't',
    summary: 's',
    access: access.anyUser,
    body: z
      .strictObject({ list: z.number().min(0), retail: z.number().min(0) })
      .refine((p) => p.retail <= p.list, {
        message: 'retail must not exceed list',
        path: ['retail'],
      }),
    response: { status: 200, description: 'ok' },
  });

  it('answers 400 when the input breaks the document, 422 when only a rule it cannot state fails', () => {
    expect(codeOf(() => validateInput(spec, { params: {}, query: {}, body: { list: -1, retail: 0 } }))).toBe(
      'COMMON.VALIDATION_FAILED validation',
    );
    expect(codeOf(() => validateInput(spec, { params: {}, query: {}, body: { list: 1, retail: 2 } }))).toBe(
      'COMMON.RULE_VIOLATED unprocessable',
    );
  });
});
