import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { InfraError, displayPath } from '../errors';
import type { InfraContext } from '../types';

/** `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` from PATH. */
export function javaBinary(env: NodeJS.ProcessEnv = process.env): string {
  const home = env['JAVA_HOME']?.trim();
  if (home && existsSync(join(home, 'bin', 'java'))) return join(home, 'bin', 'java');
  return 'java';
}

/** Parses the major version out of `java -version` output ("17.0.15" → 17, "1.8.0_392" → 8). */
export function parseJavaMajor(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?[^"]*"/.exec(versionOutput);
  if (!match?.[1]) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

let javaChecked: number | undefined;

/** Ensures a Java ≥ 17 runtime; returns its major version. */
export function ensureJava(): number {
  if (javaChecked !== undefined) return javaChecked;
  const java = javaBinary();
  const result = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 30_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const major = result.error ? undefined : parseJavaMajor(output);
  if (major === undefined) {
    throw new InfraError('Java 17 not found on PATH: install openjdk-17-jre-headless (or set JAVA_HOME)');
  }
  if (major < 17) {
    throw new InfraError(
      `Java ${major} found (${java}) but Java 17 is required: install openjdk-17-jre-headless and put it first on PATH or set JAVA_HOME`,
    );
  }
  javaChecked = major;
  return major;
}

let mavenQueue: Promise<unknown> = Promise.resolve();

/** Maven 3.8 has no local-repository locking: never run two resolutions against ~/.m2 at once. */
function serialized<T>(task: () => Promise<T>): Promise<T> {
  const run = mavenQueue.then(task, task);
  mavenQueue = run.catch(() => undefined);
  return run;
}

function runLogged(command: string, args: readonly string[], logFile: string, cwd: string): Promise<number> {
  const fd = openSync(logFile, 'a');
  return new Promise<number>((resolveRun, rejectRun) => {
    const child = spawn(command, [...args], { cwd, stdio: ['ignore', fd, fd] });
    child.once('error', (err: NodeJS.ErrnoException) => {
      closeSync(fd);
      rejectRun(err);
    });
    child.once('close', (code) => {
      closeSync(fd);
      resolveRun(code ?? 1);
    });
  });
}

export interface MavenClasspath {
  /** Server name, used in messages and for `.infra/<name>/mvn.log`. */
  readonly name: string;
  readonly pomFile: string;
  /** Directory that receives the jars (`.infra/<name>/lib`). */
  readonly libDir: string;
}

/**
 * Copies the runtime dependencies of `pomFile` from Maven Central (through ~/.m2) into
 * `libDir`. Idempotent: skipped while the pom is unchanged since the last successful run.
 */
export async function resolveMavenClasspath(ctx: InfraContext, spec: MavenClasspath): Promise<string[]> {
  const pom = readFileSync(spec.pomFile, 'utf8');
  const digest = createHash('sha256').update(pom).digest('hex');
  const marker = join(spec.libDir, '.resolved');
  const jars = (): string[] =>
    existsSync(spec.libDir) ? readdirSync(spec.libDir).filter((f) => f.endsWith('.jar')) : [];
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === digest && jars().length > 0)
    return jars();

  return serialized(async () => {
    const serverDir = join(spec.libDir, '..');
    mkdirSync(serverDir, { recursive: true });
    const logFile = join(serverDir, 'mvn.log');
    const shownLog = displayPath(ctx.root, logFile);
    rmSync(spec.libDir, { recursive: true, force: true });
    writeFileSync(
      logFile,
      `# ${new Date().toISOString()} resolving ${displayPath(ctx.root, spec.pomFile)}\n`,
    );
    ctx.log(`resolving jars from Maven Central (first run only; log: ${shownLog})`);
    const started = Date.now();
    let code: number;
    try {
      code = await runLogged(
        'mvn',
        ['-B', '-q', '-f', spec.pomFile, 'dependency:copy-dependencies', `-DoutputDirectory=${spec.libDir}`],
        logFile,
        serverDir,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new InfraError(
          'Maven not found on PATH: install maven (apt-get install maven), it resolves the server jars',
        );
      }
      throw err;
    }
    const found = jars();
    if (code !== 0 || found.length === 0) {
      rmSync(spec.libDir, { recursive: true, force: true });
      throw new InfraError(
        `Maven Central unreachable (mvn dependency resolution failed): check network/proxy; see ${shownLog}`,
      );
    }
    writeFileSync(marker, `${digest}\n`);
    ctx.log(`resolved ${found.length} jars in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return found;
  });
}

export interface MavenUnpack {
  /** Server name, used in messages and for `.infra/<name>/mvn.log`. */
  readonly name: string;
  readonly pomFile: string;
  /** `<execution>` id of the pom's maven-dependency-plugin `unpack` (or `copy`). */
  readonly execution: string;
  /** `copy` for an artifact used as it is (an executable jar); `unpack` (default) for an archive. */
  readonly goal?: 'unpack' | 'copy';
  /** Pom property naming the output directory (passed as -D<property>=<outputDir>). */
  readonly outputProperty: string;
  /** Directory that receives the unpacked archive (`.infra/<name>/dist`). */
  readonly outputDir: string;
  /** A file that exists once the archive is unpacked (relative to outputDir), e.g. `bin/kc.sh`. */
  readonly expect: string;
}

/**
 * Unpacks the archive named by `pomFile` from Maven Central (through ~/.m2, so only the first run
 * downloads) into `outputDir`. Idempotent: skipped while the pom is unchanged since the last
 * successful run; a changed pom replaces the whole directory.
 */
export async function unpackMavenArchive(ctx: InfraContext, spec: MavenUnpack): Promise<void> {
  const pom = readFileSync(spec.pomFile, 'utf8');
  const digest = createHash('sha256').update(pom).digest('hex');
  const marker = join(spec.outputDir, '.resolved');
  const complete = (): boolean => existsSync(join(spec.outputDir, spec.expect));
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === digest && complete()) return;

  await serialized(async () => {
    const serverDir = join(spec.outputDir, '..');
    mkdirSync(serverDir, { recursive: true });
    const logFile = join(serverDir, 'mvn.log');
    const shownLog = displayPath(ctx.root, logFile);
    rmSync(spec.outputDir, { recursive: true, force: true });
    writeFileSync(
      logFile,
      `# ${new Date().toISOString()} unpacking ${displayPath(ctx.root, spec.pomFile)}\n`,
    );
    ctx.log(
      `unpacking the distribution from Maven Central (download on the first run only; log: ${shownLog})`,
    );
    const started = Date.now();
    let code: number;
    try {
      code = await runLogged(
        'mvn',
        [
          '-B',
          '-q',
          '-f',
          spec.pomFile,
          `dependency:${spec.goal ?? 'unpack'}@${spec.execution}`,
          `-D${spec.outputProperty}=${spec.outputDir}`,
        ],
        logFile,
        serverDir,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new InfraError(
          `Maven not found on PATH: install maven (apt-get install maven), it resolves the ${spec.name} distribution`,
        );
      }
      throw err;
    }
    if (code !== 0 || !complete()) {
      rmSync(spec.outputDir, { recursive: true, force: true });
      const cause = readFileSync(logFile, 'utf8')
        .split('\n')
        .find((line) => line.includes('[ERROR]'))
        ?.replace(/^.*?\[ERROR\]\s*/, '')
        .slice(0, 240);
      throw new InfraError(
        `mvn could not unpack the ${spec.name} distribution from Maven Central (${cause ?? `exit ${code}`}): check network/proxy; see ${shownLog}`,
      );
    }
    writeFileSync(marker, `${digest}\n`);
    ctx.log(`unpacked in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  });
}

/** Version from a jar file name in `libDir`, e.g. prefix "kafka_2.13-" → "3.9.2". */
export function jarVersion(libDir: string, prefix: string): string | undefined {
  if (!existsSync(libDir)) return undefined;
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped}(\\d[^-]*)\\.jar$`);
  for (const file of readdirSync(libDir)) {
    const match = pattern.exec(file);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** Path of the one jar in `libDir` whose name starts with `prefix`. */
export function findJar(libDir: string, prefix: string): string {
  const file = existsSync(libDir)
    ? readdirSync(libDir).find((f) => f.startsWith(prefix) && f.endsWith('.jar'))
    : undefined;
  if (!file)
    throw new InfraError(
      `${prefix}*.jar missing from ${libDir}: delete that directory and run infra:up again`,
    );
  return join(libDir, file);
}

/** Java classpath wildcard for a lib directory. */
export const classpathOf = (libDir: string): string => join(libDir, '*');

/** "512m" / "1g" / "1048576k" → MiB. */
export function heapMiB(heap: string): number {
  const match = /^(\d+)([kmg])$/i.exec(heap.trim());
  if (!match?.[1] || !match[2]) throw new InfraError(`invalid heap size "${heap}"`);
  const n = Number(match[1]);
  const unit = match[2].toLowerCase();
  return unit === 'g' ? n * 1024 : unit === 'm' ? n : Math.ceil(n / 1024);
}
