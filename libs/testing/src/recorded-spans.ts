import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Records every span of the test file in memory (a tracer provider registered for the file, W3C
 * propagation, emptied before each test) and answers its exporter. Call at the top of a spec.
 */
export function recordSpans(): InMemorySpanExporter {
  // jest's globals, reached without importing jest: this library is also loaded by benchmarks and scripts
  const { beforeAll, afterAll, beforeEach } = globalThis as unknown as Record<'beforeAll' | 'afterAll' | 'beforeEach', (fn: () => unknown) => void>;
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register({ propagator: new W3CTraceContextPropagator() }));
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());
  return exporter;
}
