import { spawn } from 'node:child_process';
import { createConnection, createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { everyAddressRefuses } from './run-service';

/**
 * A start that meets a dependency mid-failover tries again instead of exiting (issue 32), and a
 * permanent failure still ends it with one line. The probe is a real service process (tiny) on the
 * real broker; its module init fails as a MongoDB election does for its first attempts.
 */
const root = join(__dirname, '../../../..');

function kafkaEnv(): Record<string, string> {
  const keys = ['KAFKA_BROKERS', 'KAFKA_SASL_MECHANISM', 'KAFKA_USERNAME', 'KAFKA_PASSWORD'];
  const env = Object.fromEntries(keys.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  if (!env['KAFKA_BROKERS']) throw new Error('KAFKA_BROKERS unset: run under npm test, or eval "$(npm run -s infra:env)"');
  return env;
}

/** Runs tiny until it logs "tiny ready" or exits; returns its exit code (null: it became ready) and output. */
function runTiny(extra: Record<string, string>, timeoutMs = 90_000): Promise<{ code: number | null; ready: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // swc keeps the decorator metadata Nest's injector needs (tsx's esbuild does not), as the built bundles do
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'libs/platform/src/test/tiny-service.main.ts'], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', SWC_NODE_PROJECT: 'tsconfig.base.json', MONGO_URL: 'mongodb://127.0.0.1:1', KAFKA_GROUP_ID: `tiny-${Date.now()}`, ...kafkaEnv(), ...extra },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tiny neither ready nor exited in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('"tiny ready"')) {
        clearTimeout(timer);
        child.once('exit', () => resolve({ code: null, ready: true, stdout, stderr }));
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!stdout.includes('"tiny ready"')) resolve({ code, ready: false, stdout, stderr });
    });
  });
}

const retries = (stdout: string): string[] => stdout.split('\n').filter((l) => l.includes('start met a dependency that is not ready'));

describe('a start that meets a failover', () => {
  it('tries again after an election answer, and is ready on the third attempt', async () => {
    const r = await runTiny({ TINY_TRANSIENT_FAILURES: '2' });
    expect(r.stderr).not.toContain('cannot start');
    expect(r.ready).toBe(true);
    const lines = retries(r.stdout);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', error_name: 'MongoWriteConcernError', attempt: 1, retry_in_ms: 1000 });
  }, 120_000);

  it('waits out connections reset on the way to the broker (a peer restarting or cut off), then starts', async () => {
    // a proxy in front of the real broker that resets the first connections (a TCP RST), then forwards
    const [host, port] = kafkaEnv()['KAFKA_BROKERS']!.split(',')[0]!.split(':');
    let resets = 6;
    const proxy: Server = createServer((client) => {
      if (resets-- > 0) return void client.resetAndDestroy();
      const upstream = createConnection({ host, port: Number(port) });
      client.pipe(upstream).pipe(client);
      const close = (): void => void (client.destroy(), upstream.destroy());
      client.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const r = await runTiny({ KAFKA_BROKERS: `127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      expect(r.stderr).not.toContain('cannot start');
      expect(r.ready).toBe(true);
      expect(retries(r.stdout).length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(retries(r.stdout)[0]!).err).toMatch(/Kafka unreachable at 127\.0\.0\.1:\d+: .*ECONNRESET/);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  }, 120_000);

  it('tells nothing listening at any broker address (ends the start) from one address of several refusing (a broker SIGKILLed: waited out)', async () => {
    const [host, port] = kafkaEnv()['KAFKA_BROKERS']!.split(',')[0]!.split(':');
    // a port nothing listens on: take one, then close it
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const dead = `127.0.0.1:${(free.address() as AddressInfo).port}`;
    await new Promise((r) => free.close(r));
    expect(await everyAddressRefuses([dead])).toBe(true);
    expect(await everyAddressRefuses([dead, `${host}:${port}`])).toBe(false);
  }, 120_000);

  it('still ends at once, in one line, on a failure no wait can cure', async () => {
    const r = await runTiny({ TINY_PERMANENT_FAILURE: 'index spec is invalid' });
    expect(r.ready).toBe(false);
    expect(r.code).toBe(1);
    expect(retries(r.stdout)).toHaveLength(0);
    expect(r.stderr.trim().split('\n').filter((l) => !l.includes('npm warn'))).toEqual(['[tiny] cannot start: index spec is invalid']);
  }, 120_000);
});
