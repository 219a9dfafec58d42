import { z } from 'zod';

/**
 * Tracing settings (ADR 0014), standard OpenTelemetry variable names, validated like every other
 * setting: by the tracing start-up (before the app loads) and again as part of each service's
 * config, so a bad value stops the service with a message naming it.
 * - `OTEL_SDK_DISABLED=true`: no SDK and no instrumentation at all (nothing patched, no trace ids);
 * - `OTEL_TRACES_EXPORTER`: `zipkin` sends spans to `OTEL_EXPORTER_ZIPKIN_ENDPOINT`; `none` (the
 *   default) keeps the trace context (propagation, `trace_id` in logs and outbox entries) but
 *   records and exports nothing;
 * - `OTEL_TRACES_SAMPLER_ARG`: share of new traces recorded (0–1); a continued trace follows its
 *   parent's decision, so a checkout is recorded whole or not at all.
 */
export const tracingConfigSchema = z.object({
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  OTEL_TRACES_EXPORTER: z.enum(['zipkin', 'none']).default('none'),
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .default('http://127.0.0.1:9411/api/v2/spans'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** Milliseconds between exports of finished spans (the batch processor's delay). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(50).max(60_000).default(1000),
});
export type TracingConfig = z.infer<typeof tracingConfigSchema>;
