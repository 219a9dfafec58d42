import { CompressionTypes, IHeaders, Kafka, Partitioners, Producer } from 'kafkajs';
import { OutgoingMessage, TopicName } from '@mw/contracts';
import { context } from '@opentelemetry/api';
import { parentOf, sendTraced } from './trace-headers';
import { KafkaTransactionalSender, TransactionalSender, TransactionalSenderOptions } from './transactional-sender';

/** A message and, when it was stored before this publish (an outbox), the trace context it was stored with. */
export type PublishedMessage<T extends TopicName = TopicName> = OutgoingMessage<T> & { readonly traceparent?: string };

/** Kafka headers carried on every message, so tools can route without parsing the value. */
export function envelopeHeaders(msg: OutgoingMessage): IHeaders {
  const e = msg.envelope;
  return {
    'x-message-id': e.id,
    'x-message-type': e.type,
    'x-message-version': String(e.version),
    'x-correlation-id': e.correlation_id,
    ...(e.causation_id ? { 'x-causation-id': e.causation_id } : {}),
  };
}

/**
 * Typed publisher: an idempotent kafkajs producer (acks=all, no duplicates on producer retries),
 * key = aggregate id, envelope JSON in the value and its ids in headers.
 */
export class KafkaPublisher {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(private readonly kafka: Kafka) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // The Java-compatible murmur2 partitioner: a key lands on the same partition as from any Kafka client.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  connect(): Promise<void> {
    this.connected ??= this.producer.connect();
    return this.connected;
  }

  async publish<T extends TopicName>(msg: PublishedMessage<T>): Promise<void> {
    await this.publishAll([msg]);
  }

  /**
   * Sends messages in order; messages for the same topic go in one request. Each continues its
   * stored trace context, or the caller's (ADR 0014).
   */
  async publishAll(messages: readonly PublishedMessage[], opts: { readonly outbox?: string } = {}): Promise<void> {
    if (messages.length === 0) return;
    await this.connect();
    const active = context.active();
    const attributes = opts.outbox ? { 'mw.outbox': opts.outbox } : undefined;
    const records = messages.map((m) => ({ topic: m.topic, key: m.key, value: JSON.stringify(m.envelope), headers: envelopeHeaders(m) as Record<string, string>, parent: parentOf(m.traceparent, active), attributes }));
    const byTopic = new Map<string, typeof records>();
    for (const r of records) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
    await sendTraced(records, () =>
      this.producer.sendBatch({
        acks: -1,
        compression: CompressionTypes.None,
        topicMessages: [...byTopic].map(([topic, rs]) => ({ topic, messages: rs.map((r) => ({ key: r.key, value: r.value, headers: r.headers })) })),
      }),
    );
  }

  /**
   * A producer of its own with a transactional id: what it sends becomes visible only when its
   * transaction commits, and a newer producer with the same id fences it (outbox relay, ADR 0005).
   */
  transactional(transactionalId: string, opts: TransactionalSenderOptions = {}): TransactionalSender {
    return new KafkaTransactionalSender(this.kafka, transactionalId, opts);
  }

  /** Raw send (dead-letter and redrive keep the original bytes and headers). */
  async sendRaw(topic: string, message: { key: Buffer | string | null; value: Buffer | string | null; headers: IHeaders }): Promise<void> {
    await this.connect();
    await this.producer.send({ topic, acks: -1, messages: [message] });
  }

  async disconnect(): Promise<void> {
    if (this.connected) await this.producer.disconnect();
    this.connected = undefined;
  }
}
