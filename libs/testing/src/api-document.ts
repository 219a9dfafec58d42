import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ApiDescription, serviceOpenApi } from '@mw/platform';

const ROOT = resolve(__dirname, '../../..');

/** Where a service's OpenAPI document is committed. */
export function apiDocumentPath(api: ApiDescription): string {
  return join(ROOT, 'docs', 'api', `${api.name}.openapi.json`);
}

/**
 * The committed document of a service as it should be. With API_DOCS_WRITE=1 (`npm run api:docs`)
 * writes it; otherwise returns what is committed and what the code builds, for a test to compare
 * (CI fails when a committed document is stale).
 */
export function committedApiDocument(api: ApiDescription): { committed: unknown; built: unknown; file: string } {
  const file = apiDocumentPath(api);
  const built = JSON.parse(JSON.stringify(serviceOpenApi(api))) as unknown;
  if (process.env['API_DOCS_WRITE'] === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(built, null, 2)}\n`);
  }
  const committed = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
  return { committed, built, file };
}
