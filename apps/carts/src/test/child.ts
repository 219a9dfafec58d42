import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, waitFor } from '@mw/testing';


/**
 * The real carts service (apps/carts/src/main.ts) in its own process group, compiled on the fly by
 * @swc-node/register (keeps decorator metadata, unlike tsx), so a test can SIGKILL all of it.
 */
export class CartsChild {
  private readonly lines: string[] = [];
  private exited: Promise<unknown> | undefined;
  private proc: ChildProcess | undefined;
  url = '';

  /**
   * `env` is the harness's (CartsHarness.env): besides the private keyspace and topics it carries
   * OIDC_ISSUER / OIDC_AUDIENCE of the project's Keycloak (from the jest globalSetup) and the
   * GUEST_SESSION_SECRET, so the child accepts the suite's tokens and guest sessions.
   */
  constructor(private readonly env: Record<string, string>) {
    const missing = ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'GUEST_SESSION_SECRET'].filter((k) => !env[k]);
    if (missing.length > 0) throw new Error(`carts child needs ${missing.join(', ')} in its environment`);
  }

  async start(): Promise<void> {
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const root = join(__dirname, '../../../..');
    this.proc = spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'apps/carts/src/main.ts')], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...this.env, HTTP_PORT: String(port), SWC_NODE_PROJECT: join(root, 'tsconfig.base.json') },
    });
    this.exited = new Promise((r) => this.proc?.once('exit', r));
    this.proc.stdout?.on('data', (b: Buffer) => this.lines.push(...b.toString().split('\n')));
    await waitFor(async () => (await fetch(`${this.url}/health`)).ok, 120_000, 'carts child ready');
  }

  /** Waits for the child to reach its pause point and returns the checkout id it printed. */
  async pausedAt(point: string): Promise<string> {
    const line = await waitFor(async () => this.lines.find((l) => l.startsWith(`PAUSED ${point} `)), 60_000, `pause at ${point}`);
    return line.split(' ')[2] ?? '';
  }

  /** SIGKILL to the whole process group: no shutdown hook, no flush, nothing after the pause point runs. */
  async kill(): Promise<void> {
    if (this.proc?.pid) process.kill(-this.proc.pid, 'SIGKILL');
    await this.exited;
  }
}
