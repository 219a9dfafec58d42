/**
 * Sign-in with Keycloak: authorization code + PKCE (S256) on the public client mobile-world-web,
 * tokens renewed in the background with the refresh token (automaticSilentRenew), sign-out at the
 * identity provider. The access token goes to the services as a bearer (api/clients.ts).
 */
import { User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import type { AppConfig } from '../config';
import { rolesOf, type StaffRole } from './roles';

export interface Auth {
  readonly user: User | null;
  /** The token subject: who the services think you are. */
  readonly subject: string | undefined;
  readonly name: string | undefined;
  readonly roles: readonly string[];
  hasRole(role: StaffRole | 'customer'): boolean;
  signIn(returnTo: string): Promise<void>;
  signOut(): Promise<void>;
  /** The current access token, for the API clients. */
  token(): string | undefined;
  readonly manager: UserManager;
}

const AuthContext = createContext<Auth | null>(null);

export function createUserManager(config: AppConfig, origin = window.location.origin): UserManager {
  return new UserManager({
    authority: config.oidc.issuer,
    client_id: config.oidc.clientId,
    redirect_uri: `${origin}/auth/callback`,
    post_logout_redirect_uri: `${origin}/`,
    response_type: 'code',
    scope: 'openid profile',
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
}

export function AuthProvider({ manager, children }: { manager: UserManager; children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [ready, setReady] = useState(false);
  // read by the API clients' middleware: set where the user changes, before React renders with it
  const userRef = useRef<User | null>(null);

  useEffect(() => {
    let live = true;
    const loaded = (u: User | null): void => {
      if (!live) return;
      userRef.current = u && !u.expired ? u : null;
      setUser(userRef.current);
    };
    const unloaded = (): void => loaded(null);
    manager.events.addUserLoaded(loaded);
    manager.events.addUserUnloaded(unloaded);
    manager.events.addUserSignedOut(unloaded);
    manager
      .getUser()
      .then(loaded)
      .catch(() => loaded(null))
      .finally(() => live && setReady(true));
    return () => {
      live = false;
      manager.events.removeUserLoaded(loaded);
      manager.events.removeUserUnloaded(unloaded);
      manager.events.removeUserSignedOut(unloaded);
    };
  }, [manager]);

  const signIn = useCallback(
    (returnTo: string) => manager.signinRedirect({ state: { returnTo } }),
    [manager],
  );
  const signOut = useCallback(async () => {
    await manager.signoutRedirect().catch(async () => manager.removeUser());
  }, [manager]);
  const token = useCallback(() => userRef.current?.access_token, []);

  const value = useMemo<Auth>(() => {
    const roles = rolesOf(user?.access_token);
    return {
      user,
      subject: user?.profile.sub,
      name: user?.profile.preferred_username ?? user?.profile.name,
      roles,
      hasRole: (r) => roles.includes(r),
      signIn,
      signOut,
      token,
      manager,
    };
  }, [user, signIn, signOut, token, manager]);

  if (!ready) return null;
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const a = useContext(AuthContext);
  if (!a) throw new Error('useAuth outside AuthProvider');
  return a;
}
