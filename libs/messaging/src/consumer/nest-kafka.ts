import type { KafkaContext } from '@nestjs/microservices';
import type { EachMessagePayload } from 'kafkajs';
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
