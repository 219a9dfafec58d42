/**
 * Users created for one test run in the project's Keycloak (realm mobile-world) through its admin
 * API, for suites that need more customers than the demo users (the chaos storm, the end-to-end
 * payment rules by user id). Real users, real password grants; nothing is signed here.
 */
import { randomUUID } from 'node:crypto';
import { oidcEnv, passwordToken } from './oidc';

export interface TestUser {
  readonly username: string;
  /** Keycloak user id: the `sub` of the user's tokens. */
  readonly id: string;
  readonly password: string;
}

const adminBase = (): { base: string; realm: string } => {
  const match = /^(.*)\/realms\/([^/]+)$/.exec(oidcEnv().issuer);
  if (!match?.[1] || !match[2])
    throw new Error(`OIDC_ISSUER ${oidcEnv().issuer} is not a Keycloak realm URL`);
  return { base: match[1], realm: match[2] };
};

async function postForm(
  url: string,
  fields: Record<string, string>,
): Promise<{ access_token: string; expires_in: number }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as { access_token: string; expires_in: number };
}

/** The realm administrator's token (tools/infra's development bootstrap admin, KEYCLOAK_ADMIN_* to override). */
async function adminToken(): Promise<string> {
  const { base } = adminBase();
  const body = await postForm(`${base}/realms/master/protocol/openid-connect/token`, {
    grant_type: 'password',
    client_id: 'admin-cli',
    username: process.env['KEYCLOAK_ADMIN_USERNAME'] ?? 'admin',
    password: process.env['KEYCLOAK_ADMIN_PASSWORD'] ?? 'admin',
  });
  return body.access_token;
}

async function adminCall(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  const { base, realm } = adminBase();
  const r = await fetch(`${base}/admin/realms/${realm}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  if (!r.ok && r.status !== 409)
    throw new Error(`Keycloak admin ${method} ${path}: ${r.status} ${(await r.text()).slice(0, 300)}`);
  return r;
}

/**
 * Creates customers (the realm's default role) named `<prefix>-<n>`, with `extraRoles` (realm roles)
 * besides; returns them with their ids. Idempotent per name (an existing user keeps its id and gets
 * the password again).
 */
export async function createTestUsers(
  prefix: string,
  count: number,
  extraRoles: readonly string[] = [],
): Promise<TestUser[]> {
  const token = await adminToken();
  const password = randomUUID();
  const users: TestUser[] = [];
  for (let n = 1; n <= count; n++) {
    const username = `${prefix}-${n}`.toLowerCase();
    await adminCall(token, 'POST', '/users', {
      username,
      enabled: true,
      email: `${username}@e2e.mobile-world.test`,
      emailVerified: true,
      firstName: 'Test',
      lastName: username,
      requiredActions: [],
    });
    const found = (await (
      await adminCall(token, 'GET', `/users?exact=true&username=${encodeURIComponent(username)}`)
    ).json()) as Array<{ id: string }>;
    const id = found[0]?.id;
    if (!id) throw new Error(`Keycloak did not create ${username}`);
    await adminCall(token, 'PUT', `/users/${id}/reset-password`, {
      type: 'password',
      value: password,
      temporary: false,
    });
    if (extraRoles.length > 0) {
      const roles = await Promise.all(
        extraRoles.map(async (r) =>
          (await adminCall(token, 'GET', `/roles/${encodeURIComponent(r)}`)).json(),
        ),
      );
      await adminCall(token, 'POST', `/users/${id}/role-mappings/realm`, roles);
    }
    users.push({ username, id, password });
  }
  return users;
}

/** Deletes users made by createTestUsers (end of a run). */
export async function deleteTestUsers(users: readonly TestUser[]): Promise<void> {
  const token = await adminToken();
  for (const u of users) await adminCall(token, 'DELETE', `/users/${u.id}`).catch(() => undefined);
}

/** A password-grant access token of a test user (client mobile-world-web), reused until a minute before expiry. */
export function testUserToken(user: TestUser, validForMs = 0): Promise<string> {
  return passwordToken(user.username, user.password, validForMs);
}

/**
 * Lets a browser origin call Keycloak's token endpoint for a client (its "Web Origins"): the realm
 * file lists the web app's default origin (http://127.0.0.1:4400); a web app on another port (a test
 * run's, `npm start` with STACK_PORT_OFFSET) is added here, in the running Keycloak only. Idempotent.
 * Returns a function that takes the origin away again.
 */
export async function allowWebOrigin(
  origin: string,
  clientId = 'mobile-world-web',
): Promise<() => Promise<void>> {
  const token = await adminToken();
  const found = (await (
    await adminCall(token, 'GET', `/clients?clientId=${encodeURIComponent(clientId)}`)
  ).json()) as Array<{ id: string; webOrigins?: string[] }>;
  const client = found[0];
  if (!client) throw new Error(`Keycloak has no client ${clientId}`);
  const update = async (change: (origins: string[]) => string[]): Promise<void> => {
    const t = await adminToken();
    const current = (await (await adminCall(t, 'GET', `/clients/${client.id}`)).json()) as Record<
      string,
      unknown
    > & {
      webOrigins?: string[];
    };
    const next = change(current.webOrigins ?? []);
    if (next.length === (current.webOrigins ?? []).length) return;
    await adminCall(t, 'PUT', `/clients/${client.id}`, { ...current, webOrigins: next });
  };
  const had = (client.webOrigins ?? []).includes(origin);
  await update((o) => (o.includes(origin) ? o : [...o, origin]));
  return async () => {
    if (!had) await update((o) => o.filter((x) => x !== origin));
  };
}
