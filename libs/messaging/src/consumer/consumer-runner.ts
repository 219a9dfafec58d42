import { type Context, type Link, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { IHeaders } from 'kafkajs';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { decodeEnvelope, dlqTopicOf, EnvelopeOf, TopicName } from '@mw/contracts';
import {
  AppError,
  ConsumerTimeouts,
  defaultConsumerTimeouts,
  HandlerTimeoutError,
  HealthCheck,
  HealthRegistry,
  isInfrastructureError,
  consumedContext,
  inSpan,
  kafkaActionOf,
  runWithTrace,
  SpanKind,
  startSpan,
  withSpan,
} from '@mw/platform';
import { KafkaPublisher } from '../publisher/publisher';
import { Membership } from './membership';

/** A consumed record as kafkajs (or Nest's KafkaContext with keepBinary) hands it over. */
export interface InboundRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
  /**
   * The consumer's heartbeat (kafkajs eachMessage `heartbeat`, Nest `KafkaContext.getHeartbeat()`).
   * Called while the record is worked on so the member keeps its partitions; it rejects once the
   * group has rebalanced. Without it a long wait can cost the partition.
   */
  readonly heartbeat?: () => Promise<void>;
}

/** What a handler gets besides the envelope: aborted when its attempt passes the deadline. */
export interface HandlerContext {
  readonly signal: AbortSignal;
  readonly attempt: number;
}

/** What a batch handler gets besides the envelopes. */
export interface BatchContext extends HandlerContext {
  /**
   * Runs `fn` as the work of the batch's `index`-th envelope: in its trace (correlation and
   * causation for the messages it builds) and in its `handle <type>` span, which continues the
   * record's producer span and ends with the batch. What `fn` writes to an outbox continues that
   * message's trace, as on the per-message path.
   */
  within<R>(index: number, fn: () => R): R;
}

export interface RetryPolicy {
  /** Attempts before dead-lettering a message whose handler keeps failing with an unclassified error (likely a bug). */
  readonly attempts: number;
  readonly initialBackoffMs: number;
  /** Backoff cap, also while waiting for a dependency to come back. */
  readonly maxBackoffMs: number;
  /** Deadline of one handler attempt; below the session timeout (ADR 0004). */
  readonly handlerTimeoutMs: number;
  /** How often the member heartbeats while a record is worked on (kafkajs sends at most one per heartbeatInterval). */
  readonly heartbeatEveryMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5000,
  handlerTimeoutMs: defaultConsumerTimeouts.handlerTimeoutMs,
  heartbeatEveryMs: 1000,
};

/** The policy of a service's consumer timeouts. */
export function retryPolicyOf(timeouts: ConsumerTimeouts): RetryPolicy {
  return {
    ...defaultRetryPolicy,
    handlerTimeoutMs: timeouts.handlerTimeoutMs,
    heartbeatEveryMs: Math.max(100, Math.floor(timeouts.heartbeatIntervalMs / 3)),
  };
}

/** Set by the redrive on a record it moves back: only this consumer group handles it; every other group skips it. */
export const REDRIVE_GROUP_HEADER = 'x-redrive-group';

export type Outcome = 'handled' | 'dead-lettered' | 'skipped';

/** Thrown out of `run` when the service shuts down while a record waits: it is not committed and comes back. */
export class ConsumerStoppingError extends Error {
  constructor() {
    super('consumer is stopping; the record stays uncommitted');
    this.name = 'ConsumerStoppingError';
  }
}

type Attempt = { ok: true } | { ok: false; error: unknown };

/**
 * Runs a handler for one consumed record (ADR 0004): decode and validate the envelope, run the
 * handler inside the message's trace with a deadline per attempt, and decide on failure:
 * - a dependency is down (kafkaActionOf → `wait`): hold the partition and try again with bounded
 *   backoff for as long as it takes, heartbeating so the member keeps the partition; readiness is
 *   not-ready meanwhile. Such a message is never dead-lettered;
 * - the message can never succeed (invalid, `dead-letter`): publish the original record to
 *   `<topic>.dlq` with the reason, the consumer group and the original coordinates at once;
 * - anything else (`retry`, likely a bug): a few attempts, then the dead-letter topic.
 * Handled and dead-lettered records return normally, so the offset is committed. If the heartbeat
 * says the group rebalanced, it stops (after the running attempt returned) and rethrows that
 * error: the offset is not committed and kafkajs rejoins; the record's new owner takes it over.
 * A record redriven for another consumer group is skipped.
 */
export class ConsumerRunner {
  private readonly processed: Counter<'topic' | 'type' | 'outcome'>;
  /** kafka_consumer_partitions_waiting. */
  readonly waitingGauge: Gauge;
  private readonly policy: RetryPolicy;
  /** Partitions holding a record until a dependency is back: `topic/partition` → since, last error. */
  private readonly waiting = new Map<string, { since: number; error: string }>();
  private readonly active = new Set<Membership>();
  private stopping = false;

  /** Readiness: not-ready while any partition waits for a dependency or a handler overran its deadline. */
  readonly readiness: HealthCheck = {
    name: 'kafka-consumer',
    check: async () => {
      const first = this.waiting.entries().next();
      if (first.done) return;
      const [where, w] = first.value;
      throw new Error(
        `${this.waiting.size} partition(s) waiting for a dependency, ${where} for ${Date.now() - w.since} ms: ${w.error}`,
      );
    },
  };

  constructor(
    private readonly publisher: KafkaPublisher,
    private readonly logger: Logger,
    private readonly consumerGroup: string,
    registry?: Registry,
    policy: Partial<RetryPolicy> = {},
  ) {
    this.policy = { ...defaultRetryPolicy, ...policy };
    this.processed = new Counter({
      name: 'kafka_messages_processed_total',
      help: 'Consumed messages by topic, type and outcome (handled, retried, waited, dead-lettered, skipped)',
      labelNames: ['topic', 'type', 'outcome'],
      registers: registry ? [registry] : [],
    });
    const waiting = this.waiting;
    this.waitingGauge = new Gauge({
      name: 'kafka_consumer_partitions_waiting',
      help: 'Partitions holding a record until a dependency (MongoDB, Cassandra, Kafka) is back',
      registers: registry ? [registry] : [],
      collect() {
        this.set(waiting.size);
      },
    });
  }

  /** Ends every wait at once (the service is shutting down); records not finished stay uncommitted. */
  stop(): void {
    this.stopping = true;
    for (const m of this.active) m.wake();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  async run<T extends TopicName>(
    topic: T,
    record: InboundRecord,
    handler: (envelope: EnvelopeOf<T>, ctx: HandlerContext) => Promise<void>,
  ): Promise<Outcome> {
    const target = headerText(record.headers, REDRIVE_GROUP_HEADER);
    if (target !== undefined && target !== this.consumerGroup) {
      this.processed.inc({
        topic,
        type: headerText(record.headers, 'x-message-type') ?? 'unknown',
        outcome: 'skipped',
      });
      return 'skipped';
    }
    const membership = new Membership(record.heartbeat, this.policy.heartbeatEveryMs, this.logger);
    this.active.add(membership);
    try {
      const parsed = parseJson(record.value);
      if (!parsed.ok)
        return await this.deadLetter(
          record,
          membership,
          'COMMON.UNPARSEABLE_MESSAGE',
          parsed.reason,
          0,
          'unknown',
        );
      const decoded = decodeEnvelope(topic, parsed.value);
      if (!decoded.ok)
        return await this.deadLetter(
          record,
          membership,
          'COMMON.INVALID_MESSAGE',
          decoded.reason,
          0,
          typeOf(parsed.value),
        );
      const envelope = decoded.envelope;
      const trace = {
        correlation_id: envelope.correlation_id,
        causation_id: envelope.causation_id,
        message_id: envelope.id,
      };
      // the handler runs in the trace the record's headers carry (ADR 0014): what it writes or sends continues it
      const { parent, remote } = consumedContext(record.headers);
      return await inSpan(
        `handle ${envelope.type}`,
        { kind: remote ? SpanKind.CONSUMER : SpanKind.INTERNAL, parent, attributes: messageAttributes(record, envelope) },
        () => runWithTrace(trace, () => this.attemptUntilDone(topic, record, envelope, handler, membership)),
      );
    } finally {
      membership.stop();
      this.active.delete(membership);
      this.waiting.delete(where(record));
    }
  }

  /**
   * Group commit (issue #17): the valid records of a consumed batch go to `batchHandler` in one call
   * (one attempt with the handler deadline, heartbeating meanwhile); when it succeeds every one of
   * them is handled. When it fails, each record takes the per-message path (`run` with `handler`:
   * retries, waiting out a dependency, the dead-letter topic), so a batch never loses or
   * dead-letters a record that would have succeeded alone. Invalid records and records redriven for
   * another group take the per-message path at once. For consumers whose effect does not depend on
   * the order of the records within a batch (idempotent and state-reading, like the sales read
   * model); the caller commits the batch's offsets only after this returns.
   */
  async runBatch<T extends TopicName>(
    topic: T,
    records: readonly InboundRecord[],
    batchHandler: (envelopes: readonly EnvelopeOf<T>[], ctx: BatchContext) => Promise<void>,
    handler: (envelope: EnvelopeOf<T>, ctx: HandlerContext) => Promise<void>,
  ): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const valid: { index: number; record: InboundRecord; envelope: EnvelopeOf<T> }[] = [];
    for (const [index, record] of records.entries()) {
      const target = headerText(record.headers, REDRIVE_GROUP_HEADER);
      const parsed = parseJson(record.value);
      const decoded = parsed.ok ? decodeEnvelope(topic, parsed.value) : undefined;
      if ((target !== undefined && target !== this.consumerGroup) || !decoded?.ok) outcomes[index] = await this.run(topic, record, handler);
      else valid.push({ index, record, envelope: decoded.envelope });
    }
    const first = valid[0];
    if (!first) return outcomes;
    const membership = new Membership(first.record.heartbeat, this.policy.heartbeatEveryMs, this.logger);
    this.active.add(membership);
    let result: Attempt | undefined;
    const spans = new MessageSpans(valid);
    try {
      this.throwIfGone(membership);
      result = await inBatchSpan(topic, valid.map((v) => v.record), () =>
        this.attempt((_, ctx) => batchHandler(valid.map((v) => v.envelope), { ...ctx, within: (i, fn) => spans.within(i, fn) }), first.envelope, 1),
      );
      this.throwIfGone(membership);
    } finally {
      membership.stop();
      this.active.delete(membership);
      spans.end(result?.ok === true ? undefined : (result?.error ?? 'left before the batch finished'));
    }
    if (result.ok) {
      for (const v of valid) {
        this.processed.inc({ topic, type: v.envelope.type, outcome: 'handled' });
        outcomes[v.index] = 'handled';
      }
      return outcomes;
    }
    this.logger.warn(
      { topic, partition: first.record.partition, from_offset: first.record.offset, records: valid.length, err: result.error instanceof Error ? result.error.message : String(result.error) },
      'batch failed; its records are handled one by one',
    );
    for (const v of valid) outcomes[v.index] = await this.run(topic, v.record, handler);
    return outcomes;
  }

  private async attemptUntilDone<T extends TopicName>(
    topic: T,
    record: InboundRecord,
    envelope: EnvelopeOf<T>,
    handler: (envelope: EnvelopeOf<T>, ctx: HandlerContext) => Promise<void>,
    membership: Membership,
  ): Promise<Outcome> {
    let unclassified = 0;
    for (let attempt = 1; ; attempt++) {
      this.throwIfGone(membership);
      const result = await this.attempt(handler, envelope, attempt);
      if (result.ok) {
        this.waiting.delete(where(record));
        this.processed.inc({ topic, type: envelope.type, outcome: 'handled' });
        return 'handled';
      }
      const { error } = result;
      // The group moved on while the attempt ran: another member owns the record now.
      this.throwIfGone(membership);
      const action = kafkaActionOf(error);
      const code =
        error instanceof AppError
          ? error.code
          : error instanceof HandlerTimeoutError
            ? 'COMMON.HANDLER_TIMEOUT'
            : 'COMMON.HANDLER_FAILED';
      const reason = error instanceof Error ? error.message : String(error);
      if (action === 'retry') unclassified++;
      if (action === 'dead-letter' || unclassified >= this.policy.attempts) {
        this.waiting.delete(where(record));
        return this.deadLetter(record, membership, code, reason, attempt, envelope.type);
      }
      const backoff = this.backoffMs(attempt);
      if (action === 'wait') this.markWaiting(record, `${code}: ${reason}`);
      this.processed.inc({ topic, type: envelope.type, outcome: action === 'wait' ? 'waited' : 'retried' });
      const log = {
        topic,
        partition: record.partition,
        offset: record.offset,
        attempt,
        backoff_ms: backoff,
        code,
        err: reason,
      };
      this.logger.warn(
        log,
        action === 'wait'
          ? 'dependency unavailable, holding the partition until it is back'
          : 'handler failed, retrying',
      );
      await membership.sleep(backoff);
    }
  }

  /** One handler call with a deadline. Never two attempts of one record at once: past the deadline the
   * handler's signal is aborted and the runner waits for the call to return before going on. */
  private async attempt<T extends TopicName>(
    handler: (envelope: EnvelopeOf<T>, ctx: HandlerContext) => Promise<void>,
    envelope: EnvelopeOf<T>,
    attempt: number,
  ): Promise<Attempt> {
    const controller = new AbortController();
    const work: Promise<Attempt> = Promise.resolve()
      .then(() => handler(envelope, { signal: controller.signal, attempt }))
      .then(
        () => ({ ok: true }) as const,
        (error: unknown) => ({ ok: false, error }) as const,
      );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>(
      (resolve) => (timer = setTimeout(() => resolve('deadline'), this.policy.handlerTimeoutMs)),
    );
    try {
      const first = await Promise.race([work, deadline]);
      if (first !== 'deadline') return first;
    } finally {
      clearTimeout(timer);
    }
    const timeout = new HandlerTimeoutError(this.policy.handlerTimeoutMs);
    controller.abort(timeout);
    this.logger.warn(
      { message_id: envelope.id, timeout_ms: this.policy.handlerTimeoutMs },
      'handler attempt past its deadline, aborted; waiting for it to return',
    );
    const late = await work;
    return late.ok ? late : { ok: false, error: timeout };
  }

  private async deadLetter(
    record: InboundRecord,
    membership: Membership,
    code: string,
    reason: string,
    attempts: number,
    type: string,
  ): Promise<Outcome> {
    const dlq = dlqTopicOf(record.topic);
    const message = {
      key: record.key,
      value: record.value,
      headers: {
        ...withoutHeader(record.headers, REDRIVE_GROUP_HEADER),
        'x-dlq-reason': reason.slice(0, 2000),
        'x-dlq-error-code': code,
        'x-dlq-attempts': String(attempts),
        'x-dlq-at': new Date().toISOString(),
        'x-dlq-consumer-group': this.consumerGroup,
        'x-original-topic': record.topic,
        'x-original-partition': String(record.partition),
        'x-original-offset': record.offset,
      },
    };
    // Kafka itself may be down: wait for it like for any dependency (the record is not committed meanwhile).
    for (let n = 1; ; n++) {
      this.throwIfGone(membership);
      try {
        await this.publisher.sendRaw(dlq, message);
        break;
      } catch (e) {
        if (!isInfrastructureError(e)) throw e;
        this.markWaiting(record, `dead-letter publish: ${(e as Error).message}`);
        this.logger.warn(
          { topic: record.topic, offset: record.offset, dlq, err: (e as Error).message },
          'dead-letter publish failed, retrying',
        );
        await membership.sleep(this.backoffMs(n));
      }
    }
    this.waiting.delete(where(record));
    this.processed.inc({ topic: record.topic, type, outcome: 'dead-lettered' });
    this.logger.error(
      { topic: record.topic, partition: record.partition, offset: record.offset, dlq, code, reason },
      'message dead-lettered',
    );
    return 'dead-lettered';
  }

  private throwIfGone(membership: Membership): void {
    if (membership.lost !== undefined) {
      this.logger.warn(
        { err: (membership.lost as Error).message },
        'group rebalanced while a record was worked on; leaving it uncommitted to its new owner',
      );
      throw membership.lost;
    }
    if (this.stopping) throw new ConsumerStoppingError();
  }

  private backoffMs(attempt: number): number {
    return Math.min(this.policy.maxBackoffMs, this.policy.initialBackoffMs * 2 ** Math.min(attempt - 1, 20));
  }

  private markWaiting(record: InboundRecord, error: string): void {
    const key = where(record);
    this.waiting.set(key, { since: this.waiting.get(key)?.since ?? Date.now(), error: error.slice(0, 300) });
  }
}

const where = (record: InboundRecord): string => `${record.topic}/${record.partition}`;

function messageAttributes(record: InboundRecord, envelope: { id: string; type: string; correlation_id: string }): Record<string, string | number> {
  return {
    'messaging.system': 'kafka',
    'messaging.destination.name': record.topic,
    'messaging.destination.partition.id': String(record.partition),
    'messaging.kafka.offset': Number(record.offset),
    'messaging.message.id': envelope.id,
    'mw.message.type': envelope.type,
    'mw.correlation_id': envelope.correlation_id,
  };
}

/**
 * The `handle <type>` spans of a batch's records, started when the batch handler first works on a
 * record (`BatchContext.within`) and ended with the batch: the per-message path's span, so a
 * message's trace reads the same whichever path handled it.
 */
class MessageSpans {
  private readonly started = new Map<number, { span: Span; parent: Context }>();
  /** Each record's parent, read where the batch was consumed (not inside the batch's own span). */
  private readonly parents: { parent: Context; remote: boolean }[];

  constructor(private readonly items: readonly { record: InboundRecord; envelope: { id: string; type: string; correlation_id: string; causation_id: string | null } }[]) {
    this.parents = items.map((i) => consumedContext(i.record.headers));
  }

  within<R>(index: number, fn: () => R): R {
    const item = this.items[index];
    if (!item) throw new RangeError(`no record ${index} in a batch of ${this.items.length}`);
    let s = this.started.get(index);
    if (!s) {
      const { parent, remote } = this.parents[index]!;
      const span = startSpan(`handle ${item.envelope.type}`, { kind: remote ? SpanKind.CONSUMER : SpanKind.INTERNAL, parent, attributes: { ...messageAttributes(item.record, item.envelope), 'mw.batch': true } });
      s = { span, parent };
      this.started.set(index, s);
    }
    const trace = { correlation_id: item.envelope.correlation_id, causation_id: item.envelope.causation_id, message_id: item.envelope.id };
    return withSpan(s.span, () => runWithTrace(trace, fn), s.parent);
  }

  end(error: unknown): void {
    for (const { span } of this.started.values()) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    }
  }
}

/**
 * Runs the work on a batch of records in one span (ADR 0014): a child of the first record's trace,
 * linked to every record's, so each message's trace shows where it was handled.
 */
export function inBatchSpan<T>(topic: string, records: readonly Pick<InboundRecord, 'headers'>[], fn: () => Promise<T>): Promise<T> {
  const links = records.flatMap((r) => linkTo(consumedContext(r.headers).parent));
  const { parent, remote } = consumedContext(records[0]?.headers);
  return inSpan(
    `handle batch ${topic}`,
    { kind: remote ? SpanKind.CONSUMER : SpanKind.INTERNAL, parent, links, attributes: { 'messaging.destination.name': topic, 'messaging.batch.message_count': records.length } },
    fn,
  );
}

function linkTo(ctx: Context): Link[] {
  const sc = trace.getSpanContext(ctx);
  return sc ? [{ context: sc }] : [];
}

function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}

function withoutHeader(headers: IHeaders | undefined, name: string): IHeaders {
  const out: IHeaders = { ...(headers ?? {}) };
  delete out[name];
  return out;
}

function parseJson(
  value: Buffer | string | null,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (value === null) return { ok: false, reason: 'empty message value (tombstone)' };
  try {
    return { ok: true, value: JSON.parse(Buffer.isBuffer(value) ? value.toString('utf8') : value) };
  } catch (e) {
    return { ok: false, reason: `value is not JSON: ${(e as Error).message}` };
  }
}

function typeOf(value: unknown): string {
  const t = (value as { type?: unknown } | null)?.type;
  return typeof t === 'string' ? t.slice(0, 100) : 'unknown';
}

/** The runner of a service (MessagingModule): its consumer group, its timeouts, registered in readiness. */
export function createConsumerRunner(
  publisher: KafkaPublisher,
  logger: Logger,
  consumerGroup: string,
  registry: Registry,
  health: HealthRegistry,
  timeouts: ConsumerTimeouts | undefined,
): ConsumerRunner {
  const runner = new ConsumerRunner(
    publisher,
    logger,
    consumerGroup,
    registry,
    retryPolicyOf(timeouts ?? defaultConsumerTimeouts),
  );
  health.register(runner.readiness);
  return runner;
}
