import { Controller, Injectable, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { access, hasRole, type Caller } from '../edge/access';
import { CurrentCaller, Endpoint, endpoint } from '../edge/endpoint';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when the dependency answers a real request; rejects otherwise. */
  check(): Promise<void>;
}

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { status: 'up' | 'down'; error?: string; ms: number }>;
}

/** How long one run of the checks answers every readiness call (the checks are live requests to each dependency). */
export const READINESS_CACHE_MS = 1500;

/** Modules register the checks of their real dependencies (MongoDB ping, Kafka metadata, Cassandra query). */
@Injectable()
export class HealthRegistry {
  private readonly checks: HealthCheck[] = [];
  private cached: { readonly at: number; readonly result: Promise<Readiness> } | undefined;
  register(check: HealthCheck): void {
    this.checks.push(check);
  }

  /**
   * The result of the checks, run at most once per READINESS_CACHE_MS whoever asks (concurrent
   * callers share one run), so unauthenticated polling cannot turn into load on the databases.
   */
  readiness(now = Date.now()): Promise<Readiness> {
    if (!this.cached || now - this.cached.at >= READINESS_CACHE_MS)
      this.cached = { at: now, result: this.run() };
    return this.cached.result;
  }

  async run(timeoutMs = 2000): Promise<Readiness> {
    const results = await Promise.all(
      this.checks.map(async (c) => {
        const started = Date.now();
        try {
          await withTimeout(c.check(), timeoutMs, `${c.name} did not answer within ${timeoutMs} ms`);
          return [c.name, { status: 'up' as const, ms: Date.now() - started }] as const;
        } catch (e) {
          return [
            c.name,
            { status: 'down' as const, error: (e as Error).message, ms: Date.now() - started },
          ] as const;
        }
      }),
    );
    return { ready: results.every(([, r]) => r.status === 'up'), checks: Object.fromEntries(results) };
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const CheckResult = z.object({
  status: z.enum(['up', 'down']),
  error: z.string().optional(),
  ms: z.number(),
});
const ReadinessBody = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), CheckResult).optional().meta({
    description: 'Only for a token with the role operator: each dependency, its latency and its error',
  }),
});

export const healthEndpoints = {
  live: endpoint({
    operationId: 'liveness',
    method: 'GET',
    path: '/health',
    tag: 'operations',
    summary: 'Liveness: the process is up',
    access: access.public,
    response: {
      status: 200,
      description: 'Up',
      schema: z.object({ status: z.literal('ok') }),
      example: { status: 'ok' },
    },
  }),
  ready: endpoint({
    operationId: 'readiness',
    method: 'GET',
    path: '/health/ready',
    tag: 'operations',
    summary: 'Readiness: every dependency (MongoDB, Kafka, Cassandra) answers',
    description:
      'Anyone gets `{"status": "ready" | "not_ready"}` only. A token with the role operator also gets `checks`: each ' +
      'dependency with its latency and, when down, its error (driver messages name hosts and replica sets, so ' +
      `nobody else sees them). The checks run at most once per ${READINESS_CACHE_MS} ms; every call in between gets that result.`,
    access: access.optionalUser,
    response: {
      status: 200,
      description: 'Every dependency answers',
      schema: ReadinessBody,
      example: { status: 'ready' },
    },
    otherResponses: {
      503: {
        description: 'A dependency does not answer (operators: `checks` names it)',
        schema: ReadinessBody,
      },
    },
  }),
};

@Controller()
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @Endpoint(healthEndpoints.live)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Endpoint(healthEndpoints.ready)
  async ready(@Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    const result = await this.registry.readiness();
    const status = result.ready ? 'ready' : 'not_ready';
    res
      .status(result.ready ? 200 : 503)
      .json(hasRole(caller, 'operator') ? { status, checks: result.checks } : { status });
  }
}
