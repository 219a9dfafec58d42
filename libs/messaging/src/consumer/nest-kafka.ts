import type { KafkaContext } from '@nestjs/microservices';
import type { Batch, EachMessagePayload, KafkaMessage } from 'kafkajs';
import { InboundRecord } from './consumer-runner';

/** Adapts Nest's KafkaContext (transport configured with parser.keepBinary) to the runner's record, heartbeat included. */
export function recordFromContext(ctx: KafkaContext): InboundRecord {
  const m = ctx.getMessage();
  return {
    topic: ctx.getTopic(),
    partition: ctx.getPartition(),
    offset: m.offset,
    key: m.key ?? null,
    value: (m.value as Buffer | string | null) ?? null,
    headers: m.headers,
    heartbeat: ctx.getHeartbeat(),
  };
}

/** Adapts a plain kafkajs eachMessage payload to the runner's record, heartbeat included. */
export function recordFromPayload(p: EachMessagePayload): InboundRecord {
  return {
    topic: p.topic,
    partition: p.partition,
    offset: p.message.offset,
    key: p.message.key,
    value: p.message.value,
    headers: p.message.headers,
    heartbeat: p.heartbeat,
  };
}

/** Adapts messages of a kafkajs eachBatch payload (a chunk of `batch.messages`) to the runner's records. */
export function recordsOfBatch(
  batch: Pick<Batch, 'topic' | 'partition'>,
  messages: readonly KafkaMessage[],
  heartbeat: () => Promise<void>,
): InboundRecord[] {
  return messages.map((m) => ({
    topic: batch.topic,
    partition: batch.partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers: m.headers,
    heartbeat,
  }));
}
