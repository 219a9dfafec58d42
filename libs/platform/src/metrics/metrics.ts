import { Controller, Header, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { access } from '../edge/access';
import { Endpoint, endpoint } from '../edge/endpoint';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { HealthRegistry } from '../health/health';

/** One Prometheus registry per service process. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
  }

  middleware = (req: Request, res: Response, next: NextFunction): void => {
    const end = this.httpDuration.startTimer({ method: req.method });
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route: `${req.baseUrl}${route}`, status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * `service_readiness_check_up{check}`: 1 when the readiness check answered at the scrape, else 0 — one
 * series per registered check (mongodb, cassandra, kafka, kafka-consumer, …), read from the same cached
 * run as /health/ready, so a scrape adds no load on the stores. Alert DependencyNotReady reads it.
 */
export function registerReadinessGauge(registry: Registry, health: HealthRegistry): Gauge<'check'> {
  return new Gauge({
    name: 'service_readiness_check_up',
    help: 'Readiness checks of this process (1 up, 0 down), as /health/ready reports them',
    labelNames: ['check'],
    registers: [registry],
    async collect() {
      const readiness = await health.readiness();
      for (const [check, result] of Object.entries(readiness.checks))
        this.set({ check }, result.status === 'up' ? 1 : 0);
    },
  });
}

/** Registers the readiness gauge of the service's registry (PlatformModule). */
@Injectable()
export class ReadinessMetrics {
  constructor(metrics: Metrics, health: HealthRegistry) {
    registerReadinessGauge(metrics.registry, health);
  }
}

const scrapeEndpoint = endpoint({
  operationId: 'metrics',
  method: 'GET',
  path: '/metrics',
  tag: 'operations',
  summary: 'Prometheus metrics of this process',
  description: 'Scrape with a client-credentials token of `mobile-world-ops` (role operator).',
  access: access.roles('operator'),
  response: {
    status: 200,
    description: 'Prometheus text format 0.0.4',
    schema: z.string(),
    contentType: 'text/plain',
  },
});

@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Endpoint(scrapeEndpoint)
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
