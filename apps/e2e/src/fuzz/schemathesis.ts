import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * schemathesis (PyPI), pinned with hashes in apps/e2e/fuzz/schemathesis-requirements.txt, installed
 * once into `.infra/schemathesis/venv` (pip's cache is reused). Returns the `st` executable.
 */
export function ensureSchemathesis(root: string): string {
  const venv = join(root, '.infra', 'schemathesis', 'venv');
  const st = join(venv, 'bin', 'st');
  const requirements = join(root, 'apps', 'e2e', 'fuzz', 'schemathesis-requirements.txt');
  if (existsSync(st) && spawnSync(st, ['--version'], { encoding: 'utf8' }).stdout.includes('4.32.5')) return st;
  mkdirSync(join(root, '.infra', 'schemathesis'), { recursive: true });
  const make = spawnSync('python3', ['-m', 'venv', '--clear', venv], { encoding: 'utf8' });
  if (make.status !== 0) throw new Error(`cannot create a Python venv for schemathesis (apt-get install python3-venv): ${make.stderr}`);
  const pip = spawnSync(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--require-hashes', '--no-deps', '-r', requirements], {
    encoding: 'utf8',
  });
  if (pip.status !== 0) throw new Error(`pip install schemathesis failed: ${pip.stderr.split('\n').slice(-5).join(' ')}`);
  return st;
}

/** Runs a command without blocking the event loop (the stack's processes pipe their logs through it). */
export function run(command: string, args: readonly string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
