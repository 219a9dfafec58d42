/**
 * Serves the built web app in its container (apps/web/Dockerfile, docker-compose.yml): the files of
 * `WEB_ROOT` (the Vite build), GET /config.json from the environment exactly as the Vite preview
 * server does (runtime-config.ts), and index.html for every other path without a file extension
 * (the app's own routes: /orders/…, /staff/…). Node's http module only: no dependency at runtime.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { runtimeConfig } from './runtime-config';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The file a request path names inside `root`, or undefined (outside the root, or no such file). */
export function fileFor(root: string, urlPath: string): string | undefined {
  const path = normalize(decodeURIComponent(urlPath.split('?')[0] ?? '/'));
  const full = resolve(root, `.${path}`);
  if (full !== resolve(root) && !full.startsWith(resolve(root) + sep)) return undefined;
  return existsSync(full) && statSync(full).isFile() ? full : undefined;
}

export function webServer(root: string, env: NodeJS.ProcessEnv = process.env): Server {
  const config = JSON.stringify(runtimeConfig(env));
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.split('?')[0] === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(config);
      return;
    }
    let file: string | undefined;
    try {
      file = fileFor(root, url);
    } catch {
      res.writeHead(400).end();
      return;
    }
    // an app route (no extension) is the app; a missing asset is a 404, not the app
    if (!file && extname(url.split('?')[0] ?? '') === '') file = join(root, 'index.html');
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const immutable = file.includes(`${sep}assets${sep}`);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
}

if (require.main === module) {
  const root = process.env['WEB_ROOT'] ?? join(__dirname, 'public');
  const port = Number(process.env['WEB_PORT'] ?? '4400');
  const host = process.env['WEB_HOST'] ?? '0.0.0.0';
  webServer(root).listen(port, host, () => console.log(`[web] http://${host}:${port} serving ${root}`));
}
