import { Controller, Get, HttpCode, Injectable, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

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

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process is up' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: every dependency (MongoDB, Kafka, Cassandra) answers' })
  async ready(@Res() res: Response): Promise<void> {
    const result = await this.registry.run();
    res.status(result.ready ? 200 : 503).json({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  }
}
