import { randomUUID } from 'node:crypto';
import type { Admin, IHeaders, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { dlqTopicOf } from '@mw/contracts';
import { lagRows, redrive, redriveGroupId, type RedriveResult } from '@mw/messaging';

export interface GroupLag {
  readonly group: string;
  readonly total_lag: number;
  readonly partitions: { readonly topic: string; readonly partition: number; readonly lag: number }[];
}

export interface ConsumerLagReport {
  readonly as_of: string;
  readonly groups: GroupLag[];
  /** The catalog projector's group (the read model of the storefront), also among `groups`. */
  readonly projector: GroupLag | null;
}

export interface DeadLetter {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  /** The consumer group that parked it (`x-dlq-consumer-group`): a redrive hands it back to that group only. */
  readonly group: string | null;
  readonly error_code: string | null;
  readonly reason: string | null;
  readonly attempts: number | null;
  readonly parked_at: string | null;
  readonly type: string | null;
  /** Already moved back to the topic by a redrive for its group (the redrive's position is past it). */
  readonly redriven: boolean;
}

export interface DeadLetterTopic {
  readonly topic: string;
  readonly dlq: string;
  readonly messages: DeadLetter[];
}

const text = (h: IHeaders | undefined, name: string): string | null => {
  const v = h?.[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? (v[0]?.toString() ?? null) : v.toString();
};

const typeOf = (value: Buffer | null): string | null => {
  try {
    const parsed = JSON.parse(value?.toString() ?? 'null') as { type?: unknown } | null;
    return typeof parsed?.type === 'string' ? parsed.type : null;
  } catch {
    return null;
  }
};

/**
 * The operator's view of Kafka, as the `ops` principal (ADR 0009: reads every DLQ, writes the topics
 * back, describes groups and topics): consumer lag per group and partition, the dead letters of the
 * topics this instance is told about, and a redrive of one group's dead letters — the redrive of
 * `npm run dlq:redrive` (libs/messaging), whose position per failed group makes a repeated request
 * move nothing twice.
 */
export class KafkaOperations {
  constructor(
    private readonly kafka: Kafka,
    private readonly topics: readonly string[],
    private readonly projectorGroup: string,
    private readonly logger: Logger,
    private readonly maxPerTopic = 200,
  ) {}

  private async withAdmin<T>(f: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await f(admin);
    } finally {
      await admin.disconnect();
    }
  }

  /** Every consumer group the principal may describe, with its lag on each partition it committed on. */
  async consumerLag(now = new Date()): Promise<ConsumerLagReport> {
    return this.withAdmin(async (admin) => {
      const { groups } = await admin.listGroups();
      const names = groups
        .filter((g) => g.protocolType === 'consumer' || g.protocolType === '')
        .map((g) => g.groupId)
        .filter((g) => !g.startsWith('redrive.'))
        .sort();
      const committed = await Promise.all(
        names.map(async (group) =>
          (await admin.fetchOffsets({ groupId: group })).map((t) => ({ group, ...t })),
        ),
      );
      const topics = [...new Set(committed.flat().map((c) => c.topic))];
      const ends = await Promise.all(
        topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) })),
      );
      const rows = lagRows(committed.flat(), ends);
      const report = names.map((group): GroupLag => {
        const partitions = rows
          .filter((r) => r.group === group)
          .map(({ topic, partition, lag }) => ({ topic, partition, lag }))
          .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
        return { group, total_lag: partitions.reduce((n, p) => n + p.lag, 0), partitions };
      });
      return {
        as_of: now.toISOString(),
        groups: report,
        projector: report.find((g) => g.group === this.projectorGroup) ?? null,
      };
    });
  }

  /** The messages parked in each known topic's DLQ (the oldest `maxPerTopic` still in the log). */
  async deadLetters(): Promise<DeadLetterTopic[]> {
    const out: DeadLetterTopic[] = [];
    for (const topic of this.topics)
      out.push({ topic, dlq: dlqTopicOf(topic), messages: await this.read(topic) });
    return out;
  }

  /** Moves the dead letters `group` parked in `<topic>.dlq` back to `topic`, for that group only. */
  async redrive(topic: string, group: string): Promise<RedriveResult> {
    return redrive({ kafka: this.kafka, topic, group, logger: this.logger, timeoutMs: 60_000 });
  }

  /**
   * Reads the DLQ from its start up to the end it had when asked, without joining a group (a
   * consumer of its own, assigned by hand through `fetchTopicOffsets`): reading changes nothing.
   */
  private async read(topic: string): Promise<DeadLetter[]> {
    const dlq = dlqTopicOf(topic);
    const { ends, positions } = await this.withAdmin(async (admin) => {
      const offsets = await admin.fetchTopicOffsets(dlq);
      const groups = (await admin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((g) => g.startsWith(`redrive.${topic}.`));
      const positions = new Map<string, Map<number, bigint>>();
      for (const g of groups) {
        const committed = await admin.fetchOffsets({ groupId: g, topics: [dlq] });
        positions.set(
          g,
          new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)] as const)),
        );
      }
      return { ends: offsets, positions };
    });
    const pending = ends.filter((p) => BigInt(p.high) > BigInt(p.low));
    if (pending.length === 0) return [];
    const messages: DeadLetter[] = [];
    const consumer = this.kafka.consumer({
      groupId: `redrive.browse.${topic}.${randomUUID()}`,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [dlq], fromBeginning: true });
      const left = new Map(pending.map((p) => [p.partition, BigInt(p.high)] as const));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => resolve(), 15_000);
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              const end = left.get(partition);
              const offset = BigInt(message.offset);
              if (end === undefined || offset >= end) return;
              const group = text(message.headers, 'x-dlq-consumer-group');
              const position = group
                ? positions.get(redriveGroupId(topic, group))?.get(partition)
                : undefined;
              if (messages.length < this.maxPerTopic)
                messages.push({
                  partition,
                  offset: message.offset,
                  key: message.key?.toString() ?? null,
                  group,
                  error_code: text(message.headers, 'x-dlq-error-code'),
                  reason: text(message.headers, 'x-dlq-reason'),
                  attempts: Number(text(message.headers, 'x-dlq-attempts') ?? NaN) || null,
                  parked_at: text(message.headers, 'x-dlq-at'),
                  type: typeOf(message.value),
                  redriven: position !== undefined && position > offset,
                });
              if (offset + 1n >= end) left.delete(partition);
              if (left.size === 0 || messages.length >= this.maxPerTopic) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    return messages.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
  }
}
