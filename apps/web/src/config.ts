/** Where the services and Keycloak are: GET /config.json, written by the server at its start (scripts/runtime-config.ts). */
export interface AppConfig {
  readonly api: Readonly<Record<'catalog' | 'inventory' | 'carts' | 'orders', string>>;
  readonly oidc: { readonly issuer: string; readonly clientId: string };
}

export async function loadConfig(fetchImpl: typeof fetch = fetch): Promise<AppConfig> {
  const r = await fetchImpl('/config.json', { cache: 'no-store' });
  if (!r.ok) throw new Error(`GET /config.json answered ${r.status}`);
  return (await r.json()) as AppConfig;
}
