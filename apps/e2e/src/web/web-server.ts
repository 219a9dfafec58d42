import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mw/testing';
import { ROOT } from '../stack';

/**
 * The built web app (dist/apps/web, `nx run web:build`) served by `vite preview` as `npm start`
 * serves it, pointed at a test stack's services through GET /config.json (WEB_API_*, OIDC_ISSUER).
 */
export class WebServer {
  private child: ChildProcess | undefined;
  readonly url: string;

  constructor(
    readonly port: number,
    private readonly api: Readonly<Record<'catalog' | 'inventory' | 'carts' | 'orders', string>>,
    private readonly oidcIssuer: string,
    private readonly logFile: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    if (!existsSync(join(ROOT, 'dist/apps/web/index.html')))
      throw new Error('dist/apps/web missing: nx run web:build');
    this.child = spawn(
      join(ROOT, 'node_modules/.bin/vite'),
      [
        'preview',
        '--config',
        'apps/web/vite.config.ts',
        '--port',
        String(this.port),
        '--strictPort',
        '--host',
        '127.0.0.1',
      ],
      {
        cwd: ROOT,
        // only what the server needs: where the services and the issuer are
        env: {
          VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true',
          WEB_API_CATALOG: this.api.catalog,
          WEB_API_INVENTORY: this.api.inventory,
          WEB_API_CARTS: this.api.carts,
          WEB_API_ORDERS: this.api.orders,
          OIDC_ISSUER: this.oidcIssuer,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    const log = createWriteStream(this.logFile, { flags: 'a' });
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    await waitFor(
      async () => {
        if (this.child?.exitCode !== null)
          throw new Error(`vite preview exited with ${this.child?.exitCode}`);
        const r = await fetch(`${this.url}/config.json`, { signal: AbortSignal.timeout(2000) }).catch(
          () => undefined,
        );
        return r?.ok ? true : undefined;
      },
      60_000,
      'web app served',
    );
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c?.pid || c.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    process.kill(-c.pid, 'SIGTERM');
    await exited;
  }
}
