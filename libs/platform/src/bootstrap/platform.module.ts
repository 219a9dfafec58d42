import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { HealthController, HealthRegistry } from '../health/health';
import { Metrics, MetricsController, ReadinessMetrics } from '../metrics/metrics';

export const LOGGER = Symbol('LOGGER');

/** Health, metrics and the logger, available to every module of a service. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers: [HealthRegistry, Metrics, ReadinessMetrics, { provide: LOGGER, useValue: logger }],
      exports: [HealthRegistry, Metrics, LOGGER],
    };
  }
}
