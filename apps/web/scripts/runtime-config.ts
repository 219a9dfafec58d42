/**
 * Where the browser finds the services and the identity provider, decided when the server starts
 * (not when the bundle is built): `npm start`, `nx serve web` and the browser tests each point the
 * same bundle at their own services. Served as GET /config.json by the Vite dev and preview servers.
 */
import type { Plugin, PreviewServer, ViteDevServer } from 'vite';

export interface RuntimeConfig {
  readonly api: Readonly<Record<'catalog' | 'inventory' | 'carts' | 'orders', string>>;
  readonly oidc: { readonly issuer: string; readonly clientId: string };
}

const DEFAULT_PORTS = { catalog: 3001, inventory: 3002, carts: 3003, orders: 3004 } as const;

/** From the environment: WEB_API_<SERVICE> (a URL), else 127.0.0.1:<default port + STACK_PORT_OFFSET>; OIDC_ISSUER. */
export function runtimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const offset = Number(env['STACK_PORT_OFFSET'] ?? '0') || 0;
  const url = (name: keyof typeof DEFAULT_PORTS): string =>
    env[`WEB_API_${name.toUpperCase()}`] ?? `http://127.0.0.1:${DEFAULT_PORTS[name] + offset}`;
  return {
    api: { catalog: url('catalog'), inventory: url('inventory'), carts: url('carts'), orders: url('orders') },
    oidc: {
      issuer: env['OIDC_ISSUER'] ?? `http://127.0.0.1:${env['KEYCLOAK_PORT'] ?? '18080'}/realms/mobile-world`,
      clientId: env['WEB_OIDC_CLIENT_ID'] ?? 'mobile-world-web',
    },
  };
}

export function runtimeConfigPlugin(): Plugin {
  const serve = (server: ViteDevServer | PreviewServer): void => {
    server.middlewares.use('/config.json', (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('cache-control', 'no-store');
      res.end(JSON.stringify(runtimeConfig()));
    });
  };
  return { name: 'mw-runtime-config', configureServer: serve, configurePreviewServer: serve };
}
