import { Controller, Injectable, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { access } from '../edge/access';
import { Endpoint, endpoint } from '../edge/endpoint';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when the dependency answers a real request; rejects otherwise. */
  check(): Promise<void>;
}

/** Modules register the checks of their real dependencies (MongoDB ping, Kafka metadata, Cassandra query). */
@Injectable()
export class HealthRegistry {
  private readonly checks: HealthCheck[] = [];
  register(check: HealthCheck): void {
    this.checks.push(check);
  }
  async run(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, { status: 'up' | 'down'; error?: string; ms: number }> }> {
    const results = await Promise.all(
      this.checks.map(async (c) => {
        const started = Date.now();
        try {
          await withTimeout(c.check(), timeoutMs, `${c.name} did not answer within ${timeoutMs} ms`);
          return [c.name, { status: 'up' as const, ms: Date.now() - started }] as const;
        } catch (e) {
          return [c.name, { status: 'down' as const, error: (e as Error).message, ms: Date.now() - started }] as const;
        }
      }),
    );
    return { ready: results.every(([, r]) => r.status === 'up'), checks: Object.fromEntries(results) };
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const CheckResult = z.object({ status: z.enum(['up', 'down']), error: z.string().optional(), ms: z.number() });
const Readiness = z.object({ status: z.enum(['ready', 'not_ready']), checks: z.record(z.string(), CheckResult) });

export const healthEndpoints = {
  live: endpoint({
    operationId: 'liveness',
    method: 'GET',
    path: '/health',
    tag: 'operations',
    summary: 'Liveness: the process is up',
    access: access.public,
    response: { status: 200, description: 'Up', schema: z.object({ status: z.literal('ok') }), example: { status: 'ok' } },
  }),
  ready: endpoint({
    operationId: 'readiness',
    method: 'GET',
    path: '/health/ready',
    tag: 'operations',
    summary: 'Readiness: every dependency (MongoDB, Kafka, Cassandra) answers',
    access: access.public,
    response: { status: 200, description: 'Every dependency answers', schema: Readiness },
    otherResponses: { 503: { description: 'A dependency does not answer; `checks` names it', schema: Readiness } },
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
  async ready(@Res() res: Response): Promise<void> {
    const result = await this.registry.run();
    res.status(result.ready ? 200 : 503).json({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  }
}
