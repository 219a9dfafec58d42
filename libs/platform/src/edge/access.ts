/**
 * Who may call an endpoint (ADR 0007). Plain TypeScript: the guard, the OpenAPI builder and the
 * services' ownership checks all read these rules.
 */

/** Realm roles of the identity provider (Keycloak realm `mobile-world`). */
export const ROLES = ['customer', 'catalog_manager', 'stock_manager', 'support', 'operator'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * - `public`: anyone, no credentials (catalog reads, liveness);
 * - `user`: a valid access token; with `roles`, the token must carry at least one of them;
 * - `user-or-guest`: a valid access token, or a signed guest session (carts before login);
 * - `optional-user`: anyone, but a bearer token, when sent, is verified (a bad one is a 401) and the
 *   answer may show more to some roles (stock counters to staff, readiness details to operators).
 */
export type Access =
  | { readonly kind: 'public' }
  | { readonly kind: 'optional-user' }
  | { readonly kind: 'user'; readonly roles?: readonly Role[] }
  | { readonly kind: 'user-or-guest' };

export const access = {
  public: { kind: 'public' } as Access,
  anyUser: { kind: 'user' } as Access,
  roles: (...roles: Role[]): Access => ({ kind: 'user', roles }),
  userOrGuest: { kind: 'user-or-guest' } as Access,
  optionalUser: { kind: 'optional-user' } as Access,
} as const;

/** The verified caller of a request: the token's subject, or an anonymous guest session. */
export type Caller =
  | {
      readonly kind: 'user';
      readonly id: string;
      readonly roles: ReadonlySet<Role>;
      /**
       * The identity provider's session of this token (`sid`; Keycloak 26 puts it in every access
       * token of a user login, the same across refreshes; client-credentials tokens have none).
       */
      readonly sid?: string | undefined;
    }
  | { readonly kind: 'guest'; readonly sessionId: string }
  | { readonly kind: 'anonymous' };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

export type AccessDecision = 'allow' | 'unauthenticated' | 'forbidden';

/** Whether a caller may use an endpoint with the given access rule. */
export function decideAccess(rule: Access, caller: Caller): AccessDecision {
  switch (rule.kind) {
    case 'public':
    case 'optional-user':
      return 'allow';
    case 'user-or-guest':
      return caller.kind === 'anonymous' ? 'unauthenticated' : 'allow';
    case 'user': {
      if (caller.kind !== 'user') return 'unauthenticated';
      if (!rule.roles || rule.roles.length === 0) return 'allow';
      return rule.roles.some((r) => caller.roles.has(r)) ? 'allow' : 'forbidden';
    }
  }
}

/** True when the caller holds any of the roles (e.g. support reading any order). */
export function hasRole(caller: Caller, ...roles: Role[]): boolean {
  return caller.kind === 'user' && roles.some((r) => caller.roles.has(r));
}
