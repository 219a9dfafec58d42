/**
 * Writes libs/contracts/json-schema/<topic>/<Type>.v<n>.schema.json for every message.
 * `--check` exits 1 when the committed files differ from the schemas (used by the tests/CI).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exportJsonSchemas } from '../src/json-schema';

const outDir = join(__dirname, '..', 'json-schema');
const check = process.argv.includes('--check');
let stale = 0;
if (!check && existsSync(outDir)) rmSync(outDir, { recursive: true });
for (const { file, schema } of exportJsonSchemas()) {
  const path = join(outDir, file);
  const text = `${JSON.stringify(schema, null, 2)}\n`;
  if (check) {
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
      console.error(`stale: ${file} (run npm run contracts:json-schema)`);
      stale++;
    }
    continue;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote ${file}`);
}
if (stale > 0) process.exit(1);
