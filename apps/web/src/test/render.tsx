/** Renders a page inside the app's providers, against a fake fetch, as a guest or a signed-in user with roles. */
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { User } from 'oidc-client-ts';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { newQueryClient } from '../app';
import { type Api, createApi } from '../api/clients';
import { ApiTestProvider } from '../api/api-context';
import { AuthProvider, createUserManager } from '../auth/auth';
import { I18nProvider } from '../i18n/i18n';
import { ZoneProvider } from '../shell/zone';
import { CONFIG } from './fake-fetch';

const b64url = (o: object): string =>
  btoa(JSON.stringify(o)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export async function signedIn(sub: string, roles: string[]): Promise<void> {
  const manager = createUserManager(CONFIG, 'http://web.test');
  const access_token = `${b64url({ alg: 'none' })}.${b64url({ sub, realm_access: { roles } })}.sig`;
  await manager.storeUser(
    new User({
      access_token,
      token_type: 'Bearer',
      profile: {
        sub,
        preferred_username: sub,
        iss: CONFIG.oidc.issuer,
        aud: CONFIG.oidc.clientId,
        exp: 4e9,
        iat: 0,
      },
      expires_at: Math.floor(Date.now() / 1000) + 600,
    }),
  );
}

export function renderPage(
  fetchImpl: typeof fetch,
  {
    path,
    route,
    page,
    extra = [],
  }: { path: string; route: string; page: ReactNode; extra?: { path: string; element: ReactNode }[] },
) {
  const manager = createUserManager(CONFIG, 'http://web.test');
  const api = (token: () => string | undefined): Api => createApi(CONFIG, token, fetchImpl);
  return render(
    <I18nProvider locale="en">
      <QueryClientProvider client={newQueryClient()}>
        <AuthProvider manager={manager}>
          <ApiTestProvider make={api}>
            <ZoneProvider>
              <MemoryRouter initialEntries={[path]}>
                <Routes>
                  <Route path={route} element={page} />
                  {extra.map((r) => (
                    <Route key={r.path} path={r.path} element={r.element} />
                  ))}
                </Routes>
              </MemoryRouter>
            </ZoneProvider>
          </ApiTestProvider>
        </AuthProvider>
      </QueryClientProvider>
    </I18nProvider>,
  );
}
