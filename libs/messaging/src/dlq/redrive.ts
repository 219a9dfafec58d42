import { IHeaders, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { dlqTopicOf } from '@mw/contracts';
import { REDRIVE_GROUP_HEADER } from '../consumer/consumer-runner';
import { KafkaPublisher } from '../publisher/publisher';

export interface RedriveResult {
  readonly dlq: string;
  /** The consumer group whose failures were redriven. */
  readonly group: string;
  readonly moved: number;
  /** Records of other consumer groups passed over (left for their own redrive). */
  readonly passed: number;
}

/** The consumer group that keeps a redrive's position in `<topic>.dlq`: one per failed consumer group. */
export const redriveGroupId = (topic: string, group: string): string => `redrive.${topic}.${group}`;
/** Position of the redrive before it was per consumer group; a group's first run starts from it. */
const legacyRedriveGroupId = (topic: string): string => `redrive.${topic}`;

/**
 * Removes the dead-letter bookkeeping headers, counts how often a message was redriven and names
 * the one consumer group that is to handle it again (every other group's ConsumerRunner skips it).
 */
export function redriveHeaders(headers: IHeaders | undefined, group: string): IHeaders {
  const out: IHeaders = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (
      !k.startsWith('x-dlq-') &&
      !k.startsWith('x-original-') &&
      k !== 'x-redrive-count' &&
      k !== REDRIVE_GROUP_HEADER &&
      v !== undefined
    )
      out[k] = v;
  }
  const prev = Number(headers?.['x-redrive-count']?.toString() ?? '0');
  out['x-redrive-count'] = String((Number.isFinite(prev) ? prev : 0) + 1);
  out[REDRIVE_GROUP_HEADER] = group;
  return out;
}

/**
 * Moves the records that consumer group `group` dead-lettered in `<topic>.dlq` back to their
 * original topic (same key, value and headers minus the dead-letter ones, marked for `group`
 * only), at most `max` of them, then stops. Records other groups dead-lettered stay for their own
 * redrive; records that arrive after the start are left for the next run. The position is kept
 * per failed group and committed record by record, only up to what was sent: a run cut short by
 * `max`, a timeout or a crash resumes exactly where it stopped (a record whose commit was lost
 * is sent twice at worst, never skipped). Run it after fixing what made them fail.
 */
export async function redrive(opts: {
  kafka: Kafka;
  topic: string;
  group: string;
  logger: Logger;
  max?: number;
  timeoutMs?: number;
}): Promise<RedriveResult> {
  const dlq = dlqTopicOf(opts.topic);
  const groupId = redriveGroupId(opts.topic, opts.group);
  const ends = await pendingRanges(opts.kafka, dlq, groupId, legacyRedriveGroupId(opts.topic));
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  if (ends.size === 0 || max <= 0) return { dlq, group: opts.group, moved: 0, passed: 0 };

  const publisher = new KafkaPublisher(opts.kafka);
  const consumer = opts.kafka.consumer({ groupId, allowAutoTopicCreation: false });
  let moved = 0;
  let passed = 0;
  let finished = false;
  await publisher.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [dlq], fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redrive of ${dlq} for ${opts.group} timed out after moving ${moved}`)),
        opts.timeoutMs ?? 120_000,
      );
      const done = (): void => {
        finished = true;
        clearTimeout(timer);
        resolve();
      };
      consumer
        .run({
          // Nothing is committed but what this function commits: a record it returns without moving stays.
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const end = ends.get(partition);
            const offset = BigInt(message.offset);
            if (finished || end === undefined || offset >= end || moved >= max) return;
            const failedGroup = message.headers?.['x-dlq-consumer-group']?.toString();
            if (failedGroup === opts.group) {
              const target = message.headers?.['x-original-topic']?.toString() ?? opts.topic;
              await publisher.sendRaw(target, {
                key: message.key,
                value: message.value,
                headers: redriveHeaders(message.headers, opts.group),
              });
              moved++;
              opts.logger.info(
                { dlq, partition, offset: message.offset, target, group: opts.group },
                'redriven',
              );
            } else {
              passed++;
            }
            await consumer.commitOffsets([{ topic: dlq, partition, offset: (offset + 1n).toString() }]);
            if (offset + 1n >= end) ends.delete(partition);
            if (ends.size === 0 || moved >= max) done();
          },
        })
        .catch(reject);
    });
  } finally {
    finished = true;
    await consumer.disconnect();
    await publisher.disconnect();
  }
  return { dlq, group: opts.group, moved, passed };
}

/** Partition → end offset (exclusive) of the records in the DLQ after the group's position now. */
async function pendingRanges(
  kafka: Kafka,
  dlq: string,
  groupId: string,
  legacyGroupId: string,
): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const high = await admin.fetchTopicOffsets(dlq);
    const positions = async (g: string): Promise<Map<number, bigint>> => {
      const committed = await admin.fetchOffsets({ groupId: g, topics: [dlq] });
      return new Map(
        (committed[0]?.partitions ?? [])
          .filter((p) => BigInt(p.offset) >= 0n)
          .map((p) => [p.partition, BigInt(p.offset)]),
      );
    };
    const own = await positions(groupId);
    const legacy = own.size === 0 ? await positions(legacyGroupId) : new Map<number, bigint>();
    if (legacy.size > 0) {
      // First run for this group after the redrive became per-group: start where the old redrive stopped.
      await admin.setOffsets({
        groupId,
        topic: dlq,
        partitions: [...legacy].map(([partition, offset]) => ({ partition, offset: offset.toString() })),
      });
    }
    const ends = new Map<number, bigint>();
    for (const p of high) {
      const from = own.get(p.partition) ?? legacy.get(p.partition) ?? BigInt(p.low);
      const effectiveFrom = from < BigInt(p.low) ? BigInt(p.low) : from;
      if (BigInt(p.high) > effectiveFrom) ends.set(p.partition, BigInt(p.high));
    }
    return ends;
  } finally {
    await admin.disconnect();
  }
}
