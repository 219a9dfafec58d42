import { IHeaders } from 'kafkajs';
import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';
import { decodeEnvelope, dlqTopicOf, EnvelopeOf, TopicName } from '@mw/contracts';
import { AppError, kafkaActionOf, runWithTrace } from '@mw/platform';
import { KafkaPublisher } from '../publisher/publisher';

/** A consumed record as kafkajs (or Nest's KafkaContext with keepBinary) hands it over. */
export interface InboundRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
}

export interface RetryPolicy {
  /** Attempts before dead-lettering a message whose handler keeps failing with a retryable error. */
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 5, initialBackoffMs: 200, maxBackoffMs: 5000 };

export type Outcome = 'handled' | 'dead-lettered';

/**
 * Runs a handler for one consumed record: decode and validate the envelope, run the handler
 * inside the message's trace (correlation id on every log line and every message it emits),
 * retry retryable failures with exponential backoff, and after the last attempt, or at once for
 * an invalid message, publish the original record to `<topic>.dlq` with the reason and the
 * original topic/partition/offset in headers. It returns normally in both cases so the offset is
 * committed: never a crash loop, never a silent drop. If even the dead-letter publish fails, it
 * throws, and the broker redelivers the record.
 */
export class ConsumerRunner {
  private readonly processed: Counter<'topic' | 'type' | 'outcome'>;

  constructor(
    private readonly publisher: KafkaPublisher,
    private readonly logger: Logger,
    private readonly consumerGroup: string,
    registry?: Registry,
    private readonly policy: RetryPolicy = defaultRetryPolicy,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.processed = new Counter({
      name: 'kafka_messages_processed_total',
      help: 'Consumed messages by topic, type and outcome (handled, retried, dead-lettered)',
      labelNames: ['topic', 'type', 'outcome'],
      registers: registry ? [registry] : [],
    });
  }

  async run<T extends TopicName>(topic: T, record: InboundRecord, handler: (envelope: EnvelopeOf<T>) => Promise<void>): Promise<Outcome> {
    const parsed = parseJson(record.value);
    if (!parsed.ok) return this.deadLetter(record, 'COMMON.UNPARSEABLE_MESSAGE', parsed.reason, 0, 'unknown');
    const decoded = decodeEnvelope(topic, parsed.value);
    if (!decoded.ok) return this.deadLetter(record, 'COMMON.INVALID_MESSAGE', decoded.reason, 0, typeOf(parsed.value));

    const envelope = decoded.envelope;
    const trace = { correlation_id: envelope.correlation_id, causation_id: envelope.causation_id, message_id: envelope.id };
    return runWithTrace(trace, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await handler(envelope);
          this.processed.inc({ topic, type: envelope.type, outcome: 'handled' });
          return 'handled';
        } catch (error) {
          const action = kafkaActionOf(error);
          const code = error instanceof AppError ? error.code : 'COMMON.HANDLER_FAILED';
          const reason = error instanceof Error ? error.message : String(error);
          if (action === 'dead-letter' || attempt >= this.policy.attempts) {
            return this.deadLetter(record, code, reason, attempt, envelope.type);
          }
          const backoff = Math.min(this.policy.maxBackoffMs, this.policy.initialBackoffMs * 2 ** (attempt - 1));
          this.processed.inc({ topic, type: envelope.type, outcome: 'retried' });
          this.logger.warn({ topic, offset: record.offset, attempt, backoff_ms: backoff, code, err: reason }, 'handler failed, retrying');
          await this.sleep(backoff);
        }
      }
    });
  }

  private async deadLetter(record: InboundRecord, code: string, reason: string, attempts: number, type: string): Promise<Outcome> {
    const dlq = dlqTopicOf(record.topic);
    await this.publisher.sendRaw(dlq, {
      key: record.key,
      value: record.value,
      headers: {
        ...(record.headers ?? {}),
        'x-dlq-reason': reason.slice(0, 2000),
        'x-dlq-error-code': code,
        'x-dlq-attempts': String(attempts),
        'x-dlq-at': new Date().toISOString(),
        'x-dlq-consumer-group': this.consumerGroup,
        'x-original-topic': record.topic,
        'x-original-partition': String(record.partition),
        'x-original-offset': record.offset,
      },
    });
    this.processed.inc({ topic: record.topic, type, outcome: 'dead-lettered' });
    this.logger.error({ topic: record.topic, partition: record.partition, offset: record.offset, dlq, code, reason }, 'message dead-lettered');
    return 'dead-lettered';
  }
}

function parseJson(value: Buffer | string | null): { ok: true; value: unknown } | { ok: false; reason: string } {
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
