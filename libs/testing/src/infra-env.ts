import { execFileSync } from 'node:child_process';

/**
 * A tool run on its own (`npm run bench:catalog`, not through `npm run bench` or `npm test`):
 * when KAFKA_BROKERS is not set, takes the connection variables `npm run infra:env` prints for
 * the local servers and sets those the environment lacks. Children spawned afterwards inherit
 * them. Variables already set win, so a caller's environment (another INFRA_DIR, external
 * servers) is kept.
 */
export function loadInfraEnv(root: string): void {
  if (process.env['KAFKA_BROKERS']) return;
  const out = execFileSync('npm', ['run', '-s', 'infra:env'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const vars = parseExportLine(out);
  if (!vars['KAFKA_BROKERS'])
    throw new Error(`npm run infra:env printed no KAFKA_BROKERS: ${out.slice(0, 300)}`);
  for (const [k, v] of Object.entries(vars)) process.env[k] ??= v;
}

/** `export A=b C='d e' F='it'\''s'` → { A: 'b', C: 'd e', F: "it's" } (the quoting infra:env uses). */
export function parseExportLine(line: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const m of line.matchAll(/([A-Z][A-Z0-9_]*)=((?:'[^']*'|\\'|[^\s'\\])*)/g)) {
    vars[m[1]!] = m[2]!.replace(
      /'([^']*)'|\\(')/g,
      (_, quoted: string | undefined, esc: string | undefined) => quoted ?? esc ?? '',
    );
  }
  return vars;
}
