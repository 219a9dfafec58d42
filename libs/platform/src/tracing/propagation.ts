/**
 * Trace context where the instrumentations cannot see it (ADR 0014): into an outbox entry and out
 * of it, onto Kafka headers and off them, into a document a poller picks up later. Only the
 * OpenTelemetry API is used: with the SDK off (OTEL_SDK_DISABLED) every helper is a cheap no-op —
 * no traceparent is produced, spans are non-recording, functions just run.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { currentTrace, runWithTrace } from '../logging/trace-context';

/** The tracer of the workspace's own spans (consumer handling, outbox publish, saga steps). */
const tracer = () => trace.getTracer('mobile-world');

/** A W3C `traceparent`: version 00, 32 hex trace id, 16 hex span id, 2 hex flags. */
export const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The `traceparent` of a context (default: the active one); undefined without a span or with tracing off. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const tp = carrier['traceparent'];
  return tp !== undefined && TRACEPARENT.test(tp) ? tp : undefined;
}

/** The context a stored `traceparent` continues (the root context when there is none or it is malformed). */
export function contextFromTraceparent(traceparent: string | undefined | null): Context {
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Kafka header values as kafkajs hands them over (Buffers, strings, arrays of them). */
export type HeaderValues = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

const headerGetter: TextMapGetter<HeaderValues> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = carrier[key];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.map((x) => x.toString()) : v.toString();
  },
};

/** The context carried by a consumed record's headers (root when it carries none). */
export function contextFromHeaders(headers: HeaderValues | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}

/** The trace and span ids of the active span, for a log line; none without a span. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const sc = trace.getSpan(context.active())?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  return { trace_id: sc.traceId, span_id: sc.spanId };
}

/** The trace id a `traceparent` names (what Zipkin is queried by). */
export function traceIdOf(traceparent: string | undefined | null): string | undefined {
  return typeof traceparent === 'string' && TRACEPARENT.test(traceparent) ? traceparent.slice(3, 35) : undefined;
}

export interface SpanOptions {
  readonly kind?: SpanKind;
  /** The context the span continues; the active one unless given. */
  readonly parent?: Context;
  readonly attributes?: Attributes;
  readonly links?: Link[];
}

/**
 * Runs `fn` inside a new span (a child of `parent`), ending it when `fn` settles; a thrown error is
 * recorded on the span and rethrown.
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    span.recordException(e instanceof Error ? e : String(e));
    span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
    throw e;
  } finally {
    span.end();
  }
}

/** Starts a span the caller ends (a publish that spans a batch); `parent` is the context it continues. */
export function startSpan(name: string, options: SpanOptions): Span {
  return tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, options.parent ?? context.active());
}

/** Adds an event (a saga transition, a decision) to the active span. */
export function addSpanEvent(name: string, attributes?: Attributes): void {
  trace.getSpan(context.active())?.addEvent(name, attributes);
}

/**
 * Runs `fn` with the instrumentations silenced: a poller's own queries start no traces, and a
 * producer sends records whose `traceparent` headers were set by the caller (the kafkajs
 * instrumentation would replace them with its own span's).
 */
export function untraced<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

/** Runs `fn` with `span` active, as a child context of `parent` (a span started with `startSpan` and ended by its caller). */
export function withSpan<T>(span: Span, fn: () => T, parent: Context = context.active()): T {
  return context.with(trace.setSpan(parent, span), fn);
}

/** Runs `fn` in `ctx` (e.g. the context of a document's stored traceparent). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/**
 * The context active now — the span and the log trace (correlation, causation) — as a function
 * that runs later work in it: an item handed to a batch (GroupCommit) is written in its own trace,
 * whichever item's call started the batch.
 */
export function boundToActive(): <T>(fn: () => T) => T {
  const ctx = context.active();
  const logTrace = currentTrace();
  return (fn) => context.with(ctx, () => (logTrace ? runWithTrace(logTrace, fn) : fn()));
}

export { SpanKind };

/**
 * The context a consumed record is handled in: the trace its headers carry. When an
 * instrumentation already opened a span for the record in that trace (kafkajs eachMessage), the
 * active context is kept so the handler's span nests under it; otherwise the carried context.
 */
export function consumedContext(headers: HeaderValues | undefined): { parent: Context; remote: boolean } {
  const carried = contextFromHeaders(headers);
  const carriedIds = trace.getSpanContext(carried);
  const active = context.active();
  const activeIds = trace.getSpanContext(active);
  if (carriedIds && activeIds && activeIds.traceId === carriedIds.traceId && activeIds.spanId !== carriedIds.spanId) return { parent: active, remote: false };
  if (carriedIds) return { parent: carried, remote: true };
  return activeIds ? { parent: active, remote: false } : { parent: ROOT_CONTEXT, remote: true };
}
