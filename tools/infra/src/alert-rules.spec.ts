/**
 * The alert rules (tools/infra/prometheus/alerts.yml) through promtool, the checker Prometheus ships:
 * the file must load, and every case of alerts.test.yml must pass — each rule fires with its labels
 * and rendered annotations when it should, and stays quiet when it should not.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';

const DIR = join(__dirname, '..', 'prometheus');

function promtool(...args: string[]): { code: number | null; out: string } {
  const result = spawnSync(process.env['PROMTOOL_BIN'] ?? 'promtool', args, {
    cwd: DIR,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.error)
    throw new Error(`promtool did not run (${result.error.message}): apt-get install prometheus`);
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('alert rules (promtool)', () => {
  it('load: promtool check rules', () => {
    const { code, out } = promtool('check', 'rules', 'alerts.yml');
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('SUCCESS') as unknown });
  });

  it('behave: promtool test rules alerts.test.yml', () => {
    const { code, out } = promtool('test', 'rules', 'alerts.test.yml');
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('SUCCESS') as unknown });
  });

  it('every rule has a summary, a description and a runbook, and a test case that makes it fire', () => {
    interface Rule {
      alert?: string;
      annotations?: Record<string, string>;
    }
    const rules = (
      parse(readFileSync(join(DIR, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }
    ).groups.flatMap((g) => g.rules);
    const tests = parse(readFileSync(join(DIR, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((t) =>
        (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    );
    const gaps = rules.flatMap((r) => [
      ...['summary', 'description', 'runbook']
        .filter((k) => !r.annotations?.[k])
        .map((k) => `${r.alert}: no ${k}`),
      ...(firing.has(r.alert ?? '') ? [] : [`${r.alert}: no test case fires it`]),
    ]);
    expect(gaps).toEqual([]);
    expect(rules.length).toBeGreaterThanOrEqual(15);
  });
});
