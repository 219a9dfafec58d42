import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { createApi } from '../api/clients';
import { mergeGuestCarts } from '../cart/cart-store';
import { rememberMerge } from '../cart/merge-notice';
import type { AppConfig } from '../config';
import { useT } from '../i18n/i18n';
import { useAuth } from './auth';

let inFlight: Promise<string> | undefined;

/** Keycloak's redirect back: exchange the code (PKCE), merge the guest cart into the user's, go where the user was. */
export function CallbackPage({ config }: { config: AppConfig }) {
  const t = useT();
  const { manager } = useAuth();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [error, setError] = useState<string>();
  useEffect(() => {
    // the code can be exchanged only once: a second effect run (StrictMode) waits for the first
    inFlight ??= (async () => {
      const user = await manager.signinRedirectCallback();
      const api = createApi(config, () => user.access_token);
      const merged = await mergeGuestCarts(api, user.profile.sub);
      if (merged) rememberMerge(merged);
      await qc.invalidateQueries({ queryKey: ['cart'] });
      const state = user.state as { returnTo?: string } | undefined;
      return state?.returnTo ?? '/';
    })();
    inFlight.then(
      (to) => {
        inFlight = undefined;
        void navigate(to, { replace: true });
      },
      (e: unknown) => {
        inFlight = undefined;
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [manager, config, navigate, qc]);
  return <p role="status">{error ? t('auth.failed', { message: error }) : t('auth.signingIn')}</p>;
}
