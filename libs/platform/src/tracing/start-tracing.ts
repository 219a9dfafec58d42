/**
 * OpenTelemetry for a service process (ADR 0014). Imported by each process's `instrument.ts`, the
 * first import of its main.ts, so the SDK and the instrumentations are in place before Nest,
 * express, kafkajs, mongodb or cassandra-driver are loaded (the bundles `require` them from
 * node_modules at run time, where the instrumentations' require hooks patch them).
 *
 * This file imports nothing of the workspace but the settings: importing `@mw/platform` here would
 * load the instrumented modules before the hooks exist.
 */
import { SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { CassandraDriverInstrumentation } from '@opentelemetry/instrumentation-cassandra-driver';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { mongoStatementShape } from './mongo-statement';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { onTracingFlush } from './flush';
import { type TracingConfig, tracingConfigSchema } from './tracing-settings';

/** Requests that are no one's business in a trace: probes, scrapes and the API document. */
const UNTRACED_PATHS = /^\/(health|metrics|docs)(\/|$|\?)/;

/**
 * Where a trace may begin: work entering the system (an HTTP request, a consumed message without a
 * context). A root span of anything else — a poller's database query, a relay's transaction — is
 * background noise and is not recorded (its children are not either).
 */
export class EntryPointSampler implements Sampler {
  constructor(private readonly ratio: Sampler) {}
  shouldSample(...args: Parameters<Sampler['shouldSample']>): SamplingResult {
    const kind = args[3];
    if (kind !== SpanKind.SERVER && kind !== SpanKind.CONSUMER) return { decision: SamplingDecision.NOT_RECORD };
    return this.ratio.shouldSample(...args);
  }
  toString(): string {
    return `EntryPoint{${this.ratio.toString()}}`;
  }
}

/** The sampler of the settings: a continued trace follows its parent; a new one is recorded at the configured ratio. */
export function samplerOf(config: Pick<TracingConfig, 'OTEL_TRACES_EXPORTER' | 'OTEL_TRACES_SAMPLER_ARG'>): Sampler {
  const root = config.OTEL_TRACES_EXPORTER === 'none' ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG);
  return new ParentBasedSampler({ root: new EntryPointSampler(root) });
}

/**
 * The kafkajs instrumentation without its `eachBatch` wrapper (ADR 0034 "Per-message spans"). That
 * wrapper opens a root `poll` span (kind CLIENT, which EntryPointSampler never records) and under
 * it one span per message of the batch: children of an unrecorded span, so never recorded either,
 * yet paid for by every message (its headers extracted, a span, its attributes and a link made and
 * ended). A batch consumer opens its own span, linked to every message it applies together
 * (`inBatchSpan`), and each message it hands to the ConsumerRunner gets the runner's span. Without
 * the `poll` span around it, a batch message that carries no trace context starts a trace of its
 * own (at the sampling ratio), as any consumed message does. Producer and `eachMessage` spans stay.
 */
/** MongoDB spans only under a parent (a request, a message), their statement the command's shape (mongo-statement.ts). */
export function mongoDbInstrumentation(): MongoDBInstrumentation {
  return new MongoDBInstrumentation({ requireParentSpan: true, dbStatementSerializer: mongoStatementShape });
}

export function kafkaJsInstrumentation(): KafkaJsInstrumentation {
  const instrumentation = new KafkaJsInstrumentation();
  // The instrumentation asks itself for the wrapper when `consumer.run` is given an eachBatch.
  Object.defineProperty(instrumentation, '_getConsumerEachBatchPatch', {
    value: () => (eachBatch: unknown) => eachBatch,
  });
  return instrumentation;
}

let provider: NodeTracerProvider | undefined;

/**
 * Starts tracing for `service` unless OTEL_SDK_DISABLED; returns whether it did. A bad setting
 * stops the process here with the message naming it, like any other setting.
 */
// eslint-disable-next-line no-restricted-syntax -- read before the service's config exists: the SDK must load first; the same schema is validated again with the config
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const parsed = tracingConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    process.stderr.write(`[${service}] cannot start: Invalid configuration: ${problems.join('; ')}\n`);
    process.exit(1);
  }
  const config: TracingConfig = parsed.data;
  if (config.OTEL_SDK_DISABLED || provider) return provider !== undefined;
  const spanProcessors: SpanProcessor[] =
    config.OTEL_TRACES_EXPORTER === 'zipkin'
      ? [
          new BatchSpanProcessor(new ZipkinExporter({ url: config.OTEL_EXPORTER_ZIPKIN_ENDPOINT, serviceName: service }), {
            scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
            maxQueueSize: 8192,
            maxExportBatchSize: 1024,
          }),
        ]
      : [];
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }),
    sampler: samplerOf(config),
    spanProcessors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        requireParentforOutgoingSpans: true,
      }),
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new NestInstrumentation(),
      kafkaJsInstrumentation(),
      mongoDbInstrumentation(),
      new CassandraDriverInstrumentation(),
    ],
  });
  const registered = provider;
  onTracingFlush(() => registered.forceFlush());
  return true;
}
