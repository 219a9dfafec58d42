import { createContext, type ReactNode, useContext, useMemo } from 'react';
import { useAuth } from '../auth/auth';
import type { AppConfig } from '../config';
import { type Api, createApi } from './clients';

const ApiContext = createContext<Api | null>(null);

/** The typed clients, with the signed-in user's bearer token on every call. */
export function ApiProvider({ config, children }: { config: AppConfig; children: ReactNode }) {
  const { token } = useAuth();
  const api = useMemo(() => createApi(config, token), [config, token]);
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

/** Tests: the same context with clients made by the test (a fake fetch). */
export function ApiTestProvider({
  make,
  children,
}: {
  make: (token: () => string | undefined) => Api;
  children: ReactNode;
}) {
  const { token } = useAuth();
  const api = useMemo(() => make(token), [make, token]);
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}
