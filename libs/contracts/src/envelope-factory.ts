import { randomUUID } from 'node:crypto';
import { EnvelopeOf, MessageTypeOf, PayloadOf, TopicName, messageDef } from './topics';

export interface TraceContext {
  readonly correlation_id: string;
  readonly causation_id: string | null;
}

export type OutgoingMessage<T extends TopicName = TopicName> = T extends TopicName
  ? {
      readonly topic: T;
      /** Kafka key: the aggregate id named by the message definition. */
      readonly key: string;
      readonly envelope: EnvelopeOf<T>;
    }
  : never;

/**
 * Builds a validated envelope for `type` on `topic`. The payload is checked by the message
 * schema at runtime and by the registry at compile time.
 */
export function createMessage<T extends TopicName, M extends MessageTypeOf<T>>(
  topic: T,
  type: M,
  payload: PayloadOf<T, M>,
  trace: TraceContext,
  now: Date = new Date(),
): OutgoingMessage<T> {
  const def = messageDef(topic, type);
  const parsed = def.schema.parse(payload) as Record<string, unknown>;
  const key = parsed[def.key];
  if (typeof key !== 'string' || key.length === 0) {
    throw new Error(`message ${type} has no key field ${def.key}`);
  }
  const envelope = {
    id: randomUUID(),
    type,
    version: def.version,
    occurred_at: now.toISOString(),
    correlation_id: trace.correlation_id,
    causation_id: trace.causation_id,
    payload: parsed,
  } as unknown as EnvelopeOf<T>;
  return { topic, key, envelope } as OutgoingMessage<T>;
}
