import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEMO_PASSWORD,
  DEMO_USERS,
  OPS_CLIENT_DEV_SECRET,
  OPS_CLIENT_ID,
  OPS_SERVICE_ACCOUNT_ID,
  WEB_CLIENT_ID,
  decodeJwtPayload,
} from './oidc';

/** DEMO_USERS is what tests rely on; the realm file is what Keycloak imports. They must agree. */
interface RealmFile {
  roles: { realm: { name: string; composites?: { realm?: string[] } }[] };
  users: {
    id: string;
    username: string;
    realmRoles?: string[];
    serviceAccountClientId?: string;
    emailVerified?: boolean;
    requiredActions?: string[];
    credentials?: { type: string; value: string; temporary: boolean }[];
  }[];
  clients: {
    clientId: string;
    secret?: string;
    directAccessGrantsEnabled?: boolean;
    publicClient?: boolean;
  }[];
}
const realm = JSON.parse(
  readFileSync(join(__dirname, '../../../tools/infra/keycloak/mobile-world-realm.json'), 'utf8'),
) as RealmFile;
const composites = new Map(realm.roles.realm.map((r) => [r.name, r.composites?.realm ?? []]));
const effective = (roles: readonly string[]): string[] =>
  roles
    .flatMap((r) => [r, ...effective(composites.get(r) ?? [])])
    .filter((r) => !['offline_access', 'uma_authorization'].includes(r) && !r.startsWith('default-roles-'));

describe('DEMO_USERS', () => {
  const people = realm.users.filter((u) => !u.serviceAccountClientId);

  it('lists exactly the realm file users, with their fixed ids and effective roles', () => {
    const fromRealm = Object.fromEntries(
      people.map((u) => [
        u.username,
        { id: u.id, roles: [...new Set(effective(u.realmRoles ?? []))].sort() },
      ]),
    );
    const fromHelper = Object.fromEntries(
      Object.entries(DEMO_USERS).map(([name, u]) => [name, { id: u.id, roles: [...u.roles].sort() }]),
    );
    expect(fromHelper).toEqual(fromRealm);
  });

  it('gives every demo user a verified email, no required action and the non-temporary password demo', () => {
    for (const u of people) {
      expect({
        user: u.username,
        emailVerified: u.emailVerified,
        requiredActions: u.requiredActions ?? [],
        credentials: u.credentials,
      }).toEqual({
        user: u.username,
        emailVerified: true,
        requiredActions: [],
        credentials: [{ type: 'password', value: DEMO_PASSWORD, temporary: false }],
      });
    }
  });

  it('knows the ops client secret and service account the realm file commits, and the web client allows the password grant', () => {
    expect(realm.clients.find((c) => c.clientId === OPS_CLIENT_ID)?.secret).toBe(OPS_CLIENT_DEV_SECRET);
    expect(realm.users.find((u) => u.serviceAccountClientId === OPS_CLIENT_ID)?.id).toBe(
      OPS_SERVICE_ACCOUNT_ID,
    );
    expect(realm.clients.find((c) => c.clientId === WEB_CLIENT_ID)).toMatchObject({
      publicClient: true,
      directAccessGrantsEnabled: true,
    });
  });
});

describe('decodeJwtPayload', () => {
  it('decodes the base64url payload without verifying anything', () => {
    const part = Buffer.from(JSON.stringify({ sub: 'x', n: 'ü~?' })).toString('base64url');
    expect(decodeJwtPayload(`e30.${part}.sig`)).toEqual({ sub: 'x', n: 'ü~?' });
    expect(() => decodeJwtPayload('nope')).toThrow(/not a JWT/);
  });
});
