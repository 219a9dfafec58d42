import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Bad configuration stops a service with one clear line on stderr and exit code 1 — no stack dump. */
const root = join(__dirname, '../../../..');

function start(env: Record<string, string>): { code: number | null; stderr: string[] } {
  const r = spawnSync(process.execPath, [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'libs/platform/src/test/tiny-service.main.ts'], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('npm warn')) };
}

describe('start-up errors', () => {
  it('names every missing variable in one line', () => {
    const r = start({});
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual(['[tiny] cannot start: Invalid configuration: KAFKA_BROKERS is required; MONGO_URL is required']);
  });

  it('names a malformed variable', () => {
    const r = start({ KAFKA_BROKERS: 'localhost', MONGO_URL: 'mongodb://x' });
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/KAFKA_BROKERS: must be host:port/);
  });

  it('reports an unreachable broker in one line with what to do', () => {
    const r = start({ KAFKA_BROKERS: '127.0.0.1:1', KAFKA_USERNAME: 'tiny', KAFKA_PASSWORD: 'pw', MONGO_URL: 'mongodb://127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/^\[tiny\] cannot start: Kafka unreachable at 127\.0\.0\.1:1: .*npm run infra:up/);
  });
});
