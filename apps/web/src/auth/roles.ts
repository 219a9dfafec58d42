/** The realm roles of an access token (`realm_access.roles`); the services check them again on every call. */
export const STAFF_ROLES = ['catalog_manager', 'stock_manager', 'support', 'operator'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export function rolesOf(accessToken: string | undefined): string[] {
  const payload = accessToken?.split('.')[1];
  if (!payload) return [];
  try {
    const json = atob(
      payload
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(payload.length / 4) * 4, '='),
    );
    const claims = JSON.parse(json) as { realm_access?: { roles?: unknown } };
    const roles = claims.realm_access?.roles;
    return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}
