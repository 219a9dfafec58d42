import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Proves the Nx tags are enforced: the workspace's real ESLint config refuses an import from
 * another service's app and a shared lib depending on a service. Each case writes a probe file
 * into the project, lints it with the ESLint CLI, and removes it.
 */
const root = join(__dirname, '../../..');

function boundaryErrors(file: string, code: string): string[] {
  const path = join(root, file);
  writeFileSync(path, code);
  try {
    let out: string;
    try {
      out = execFileSync(join(root, 'node_modules/.bin/eslint'), ['--format', 'json', path], { cwd: root, encoding: 'utf8' });
    } catch (e) {
      out = (e as { stdout: string }).stdout; // exit code 1 when the file has errors
    }
    const [result] = JSON.parse(out) as { messages: { ruleId: string | null; message: string }[] }[];
    return (result?.messages ?? []).filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  } finally {
    rmSync(path, { force: true });
  }
}

describe('module boundaries (Nx tags, real ESLint config)', () => {
  // The lint rule reads the cached project graph: make sure it knows every project.
  beforeAll(() => {
    execFileSync(join(root, 'node_modules/.bin/nx'), ['show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
  });

  it('refuses an app importing another app (carts → orders)', () => {
    const errors = boundaryErrors('apps/carts/src/boundary-probe.ts', "import { orderIdFromCheckout } from '../../orders/src/orders/order';\nexport const x = orderIdFromCheckout;\n");
    expect(errors.join('\n')).toMatch(/Projects cannot be imported by a relative or absolute path|scope:carts/);
  });

  it('refuses a shared lib depending on a service', () => {
    const errors = boundaryErrors('libs/messaging/src/boundary-probe.ts', "import { AppModule } from '../../../apps/orders/src/app.module';\nexport const x = AppModule;\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it('allows an app to use shared libs', () => {
    expect(boundaryErrors('apps/carts/src/boundary-probe.ts', "import { createMessage } from '@mw/contracts';\nexport const x = createMessage;\n")).toEqual([]);
  });
});
