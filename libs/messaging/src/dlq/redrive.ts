import { IHeaders, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { dlqTopicOf } from '@mw/contracts';
import { KafkaPublisher } from '../publisher/publisher';

export interface RedriveResult {
  readonly dlq: string;
  readonly moved: number;
}

/** Removes the dead-letter bookkeeping headers and counts how often a message was redriven. */
export function redriveHeaders(headers: IHeaders | undefined): IHeaders {
  const out: IHeaders = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (!k.startsWith('x-dlq-') && !k.startsWith('x-original-') && k !== 'x-redrive-count' && v !== undefined) out[k] = v;
  }
  const prev = Number(headers?.['x-redrive-count']?.toString() ?? '0');
  out['x-redrive-count'] = String((Number.isFinite(prev) ? prev : 0) + 1);
  return out;
}

/**
 * Moves every message currently in `<topic>.dlq` back to its original topic (same key, value and
 * headers minus the dead-letter ones) and commits, then stops. Messages that arrive in the DLQ
 * after the start are left for the next run. Run it after fixing what made them fail.
 */
export async function redrive(opts: { kafka: Kafka; topic: string; logger: Logger; max?: number; timeoutMs?: number }): Promise<RedriveResult> {
  const dlq = dlqTopicOf(opts.topic);
  const admin = opts.kafka.admin();
  await admin.connect();
  const groupId = `redrive.${opts.topic}`;
  const ends = new Map<number, bigint>();
  try {
    const high = await admin.fetchTopicOffsets(dlq);
    const committed = await admin.fetchOffsets({ groupId, topics: [dlq] });
    const start = new Map(committed[0]?.partitions.map((p) => [p.partition, BigInt(p.offset)]) ?? []);
    for (const p of high) {
      const from = start.get(p.partition) ?? BigInt(p.low);
      const effectiveFrom = from < 0n ? BigInt(p.low) : from;
      if (BigInt(p.high) > effectiveFrom) ends.set(p.partition, BigInt(p.high));
    }
  } finally {
    await admin.disconnect();
  }
  if (ends.size === 0) return { dlq, moved: 0 };

  const publisher = new KafkaPublisher(opts.kafka);
  const consumer = opts.kafka.consumer({ groupId, allowAutoTopicCreation: false });
  let moved = 0;
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  await publisher.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [dlq], fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redrive of ${dlq} timed out after moving ${moved}`)), opts.timeoutMs ?? 120_000);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      consumer
        .run({
          autoCommit: true,
          eachMessage: async ({ partition, message }) => {
            const end = ends.get(partition);
            if (end === undefined || BigInt(message.offset) >= end || moved >= max) return;
            const target = message.headers?.['x-original-topic']?.toString() ?? opts.topic;
            await publisher.sendRaw(target, { key: message.key, value: message.value, headers: redriveHeaders(message.headers) });
            moved++;
            opts.logger.info({ dlq, partition, offset: message.offset, target }, 'redriven');
            if (BigInt(message.offset) + 1n >= end) ends.delete(partition);
            if (ends.size === 0 || moved >= max) setImmediate(done);
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
    await publisher.disconnect();
  }
  return { dlq, moved };
}
