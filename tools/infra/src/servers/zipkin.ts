/**
 * Zipkin (the trace backend, docs/adr/0014) from its Maven Central executable jar
 * (io.zipkin:zipkin-server, classifier exec, copied by tools/infra/maven/zipkin/pom.xml into
 * .infra/zipkin/dist/zipkin.jar), run on JDK 17 with in-memory storage: traces last until the
 * server stops (or MEM_MAX_SPANS is reached, oldest first). The services send spans to
 * `<ZIPKIN_URL>/api/v2/spans`; the UI and the query API are on the same port.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InfraConfig } from '../config';
import { InfraError, displayPath } from '../errors';
import { retryUntil, serverPaths, tailFile } from '../process';
import type { InfraContext, LaunchSpec, LocalServer } from '../types';
import { ensureJava, heapMiB, javaBinary, unpackMavenArchive } from './jvm';

export const ZIPKIN_VERSION = '3.5.1';
/** The official image, for INFRA=containers and docker-compose.yml (same version as the Maven jar). */
export const ZIPKIN_IMAGE = `openzipkin/zipkin:${ZIPKIN_VERSION}`;

/**
 * Spans kept in memory for a heap: 4 KiB of heap per span. A stored span with its tags, annotations
 * and the in-memory indexes takes 1–2 KiB; the fixed 200,000 of before ran a 256 MiB heap out of
 * memory when a benchmark traced every checkout, and Zipkin stopped answering. Evicting the oldest
 * traces at this bound keeps it up whatever is sent.
 */
export function zipkinMaxSpans(heap: string): number {
  return Math.max(1_000, heapMiB(heap) * 256); // 1 MiB / 4 KiB
}

/** Where the services send spans (OTEL_EXPORTER_ZIPKIN_ENDPOINT) for a Zipkin at `baseUrl`. */
export function zipkinSpansEndpoint(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/v2/spans`;
}

export function zipkinLayout(infraDir: string): { dir: string; distDir: string; jar: string } {
  const dir = join(infraDir, 'zipkin');
  const distDir = join(dir, 'dist');
  return { dir, distDir, jar: join(distDir, 'zipkin.jar') };
}

/** `{"zipkin":{"version":"3.5.1"}}` (GET /info) → "Zipkin 3.5.1". */
export function versionFromInfo(body: unknown): string | undefined {
  const version = (body as { zipkin?: { version?: unknown } } | undefined)?.zipkin?.version;
  return typeof version === 'string' ? `Zipkin ${version}` : undefined;
}

async function getOk(url: string, timeoutMs: number): Promise<Response> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return res;
}

export function createZipkinServer(cfg: InfraConfig): LocalServer {
  const host = cfg.host;
  const port = cfg.ports.zipkin;
  const baseUrl = `http://${host}:${port}`;
  const logFile = (ctx: InfraContext): string => serverPaths(ctx.infraDir, 'zipkin').logFile;

  return {
    name: 'zipkin',
    port,
    connection: { envVar: 'ZIPKIN_URL', value: baseUrl },

    async install(ctx) {
      ensureJava();
      const layout = zipkinLayout(ctx.infraDir);
      await unpackMavenArchive(ctx, {
        name: 'zipkin',
        pomFile: join(cfg.root, 'tools', 'infra', 'maven', 'zipkin', 'pom.xml'),
        execution: 'zipkin-jar',
        goal: 'copy',
        outputProperty: 'zipkin.dist.dir',
        outputDir: layout.distDir,
        expect: 'zipkin.jar',
      });
    },

    async launch(ctx): Promise<LaunchSpec> {
      const layout = zipkinLayout(ctx.infraDir);
      if (!existsSync(layout.jar)) throw new InfraError(`zipkin: ${displayPath(ctx.root, layout.jar)} missing (install failed?)`);
      return {
        command: javaBinary(),
        args: [`-Xmx${cfg.zipkinHeap}`, '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-jar', layout.jar],
        env: {
          QUERY_PORT: String(port),
          // loopback only, like the other local servers
          ARMERIA_PORTS_0_IP: host,
          ARMERIA_PORTS_0_PORT: String(port),
          ARMERIA_PORTS_0_PROTOCOLS_0: 'http',
          STORAGE_TYPE: 'mem',
          MEM_MAX_SPANS: String(zipkinMaxSpans(cfg.zipkinHeap)),
          SELF_TRACING_ENABLED: 'false',
          COLLECTOR_ACTIVEMQ_ENABLED: 'false',
          COLLECTOR_KAFKA_ENABLED: 'false',
          COLLECTOR_RABBITMQ_ENABLED: 'false',
          COLLECTOR_SCRIBE_ENABLED: 'false',
        },
        cwd: layout.dir,
      };
    },

    async waitReady(ctx, timeoutMs) {
      try {
        await retryUntil(() => getOk(`${baseUrl}/health`, 3000), timeoutMs, {
          intervalMs: 500,
          signal: ctx.signal,
          onWait: (elapsed) => ctx.log(`waiting for ${baseUrl}/health (${Math.round(elapsed / 1000)}s)`),
        });
      } catch (err) {
        throw new InfraError(
          `zipkin not ready on ${host}:${port} after ${Math.round(timeoutMs / 1000)}s (${(err as Error).message}); last lines of ${displayPath(ctx.root, logFile(ctx))}:`,
          tailFile(logFile(ctx), 20),
        );
      }
    },

    async version() {
      const res = await getOk(`${baseUrl}/info`, 5000);
      return versionFromInfo(await res.json()) ?? 'Zipkin (unknown version)';
    },
  };
}

/** The Zipkin version the committed pom pins (tools/infra/src/infra.spec.ts keeps it equal to ZIPKIN_VERSION). */
export function pinnedZipkinVersion(root: string): string | undefined {
  const pom = readFileSync(join(root, 'tools', 'infra', 'maven', 'zipkin', 'pom.xml'), 'utf8');
  return /<zipkin\.version>([^<]+)<\/zipkin\.version>/.exec(pom)?.[1];
}
