import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  activeTraceIds,
  consumedContext,
  contextFromHeaders,
  contextFromTraceparent,
  inSpan,
  startSpan,
  traceIdOf,
  traceparentOf,
  untraced,
} from './propagation';
import { samplerOf } from './start-tracing';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  sampler: samplerOf({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_TRACES_SAMPLER_ARG: 1 }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});

beforeAll(() => provider.register({ propagator: new W3CTraceContextPropagator() }));
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

const stored = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const finished = (name: string) => {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span) throw new Error(`no finished span ${name}`);
  return span;
};

describe('trace context helpers (ADR 0014)', () => {
  it('traceparentOf names the active span, and nothing outside a span', async () => {
    expect(traceparentOf()).toBeUndefined();
    const seen = await inSpan('request', { kind: SpanKind.SERVER }, async (span) => ({ tp: traceparentOf(), ids: span.spanContext() }));
    expect(seen.tp).toBe(`00-${seen.ids.traceId}-${seen.ids.spanId}-01`);
    expect(traceIdOf(seen.tp)).toBe(seen.ids.traceId);
  });

  it('a stored traceparent is continued later: the new span is its child in the same trace', async () => {
    await inSpan('publish', { kind: SpanKind.PRODUCER, parent: contextFromTraceparent(stored) }, async () => undefined);
    const span = finished('publish');
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });

  it('a missing or malformed traceparent starts nothing: the root context', () => {
    for (const bad of [undefined, null, '', 'garbage', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331', '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']) {
      expect(contextFromTraceparent(bad)).toBe(ROOT_CONTEXT);
    }
  });

  it('reads the context from Kafka headers as kafkajs hands them over (Buffers)', () => {
    const ctx = contextFromHeaders({ traceparent: Buffer.from(stored), 'x-message-id': Buffer.from('m1') });
    expect(trace.getSpanContext(ctx)?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(trace.getSpanContext(contextFromHeaders(undefined))).toBeUndefined();
  });

  it('a consumed record continues the carried trace, nesting under a span an instrumentation opened for it', async () => {
    const headers = { traceparent: Buffer.from(stored) };
    expect(consumedContext(headers)).toEqual({ parent: expect.anything(), remote: true });
    expect(trace.getSpanContext(consumedContext(headers).parent)?.spanId).toBe('b7ad6b7169203331');
    // the kafkajs instrumentation's process span, a child of the carried context
    await inSpan('process topic', { kind: SpanKind.CONSUMER, parent: contextFromHeaders(headers) }, async (process) => {
      const { parent, remote } = consumedContext(headers);
      expect(remote).toBe(false);
      expect(trace.getSpanContext(parent)?.spanId).toBe(process.spanContext().spanId);
    });
    // an unrelated active span (another message's) is never taken as the parent
    await inSpan('other', { kind: SpanKind.SERVER, parent: ROOT_CONTEXT }, async () => {
      expect(trace.getSpanContext(consumedContext(headers).parent)?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    });
  });

  it('untraced silences the instrumentations (no span, no traceparent injected) but not a span with an explicit stored parent', async () => {
    await inSpan('request', { kind: SpanKind.SERVER }, async () => {
      await untraced(async () => {
        const carrier: Record<string, string> = { traceparent: stored };
        // what the kafkajs instrumentation does on send: a span in the active context, injected into the headers
        const instrumented = trace.getTracer('kafkajs').startSpan('send t');
        propagation.inject(trace.setSpan(context.active(), instrumented), carrier);
        instrumented.end();
        expect(instrumented.isRecording()).toBe(false);
        expect(carrier['traceparent']).toBe(stored);
        startSpan('relay send', { kind: SpanKind.PRODUCER, parent: contextFromTraceparent(stored) }).end();
      });
    });
    expect(exporter.getFinishedSpans().map((s) => s.name).sort()).toEqual(['relay send', 'request']);
  });

  it('a trace begins only where work enters (a request, a message): a background query or transaction starts none', async () => {
    await inSpan('poll', { kind: SpanKind.CLIENT, parent: ROOT_CONTEXT }, async (span) => {
      expect(span.isRecording()).toBe(false);
      // its ids still exist (log lines of the poll carry them), the child is not recorded either
      expect(activeTraceIds()?.trace_id).toMatch(/^[0-9a-f]{32}$/);
      await inSpan('child', {}, async (child) => expect(child.isRecording()).toBe(false));
    });
    await inSpan('transaction', { parent: ROOT_CONTEXT }, async (span) => expect(span.isRecording()).toBe(false));
    await inSpan('POST /carts', { kind: SpanKind.SERVER, parent: ROOT_CONTEXT }, async (span) => expect(span.isRecording()).toBe(true));
    await inSpan('handle X', { kind: SpanKind.CONSUMER, parent: ROOT_CONTEXT }, async (span) => expect(span.isRecording()).toBe(true));
  });

  it('with the exporter off nothing is recorded, yet the context still travels (log lines and outbox entries keep the trace id)', () => {
    const off = new NodeTracerProvider({ sampler: samplerOf({ OTEL_TRACES_EXPORTER: 'none', OTEL_TRACES_SAMPLER_ARG: 1 }) });
    const span = off.getTracer('t').startSpan('POST /carts', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    expect(span.isRecording()).toBe(false);
    const tp = traceparentOf(trace.setSpan(ROOT_CONTEXT, span));
    expect(tp).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-00`);
  });

  it('inSpan records a thrown error on the span and rethrows it', async () => {
    await expect(inSpan('fails', { kind: SpanKind.SERVER }, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(finished('fails').status).toEqual({ code: 2, message: 'boom' });
  });
});
