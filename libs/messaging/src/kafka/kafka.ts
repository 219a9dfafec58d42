import { Admin, ITopicConfig, Kafka, logLevel, LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { dlqTopicOf } from '@mw/contracts';

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** A kafkajs client whose logs go through the service's JSON logger. */
export function createKafka(opts: { brokers: readonly string[]; clientId: string; logger: Logger }): Kafka {
  return new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    connectionTimeout: 5000,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log, namespace }: LogEntry) => {
        const { message, ...rest } = log;
        opts.logger[levels[level] ?? 'info']({ kafkajs: namespace, ...rest }, message);
      },
  });
}

/**
 * Creates the topics (and their dead-letter topics) a service uses, if missing. Idempotent.
 * Partition count is the parallelism of a consumer group; keys keep per-aggregate order.
 */
export async function ensureTopics(kafka: Kafka, names: readonly string[], partitions: number): Promise<void> {
  const admin: Admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted: ITopicConfig[] = [...new Set(names.flatMap((n) => [n, dlqTopicOf(n)]))]
      .filter((n) => !existing.has(n))
      .map((topic) => ({
        topic,
        numPartitions: topic.endsWith('.dlq') ? 1 : partitions,
        replicationFactor: -1,
        configEntries: topic.endsWith('.dlq') ? [{ name: 'retention.ms', value: String(30 * 24 * 3600 * 1000) }] : [],
      }));
    if (wanted.length > 0) {
      try {
        await admin.createTopics({ topics: wanted, waitForLeaders: true });
      } catch (e) {
        // Another instance created them concurrently: fine, as long as they now exist.
        const now = new Set(await admin.listTopics());
        const missing = wanted.filter((t) => !now.has(t.topic));
        if (missing.length > 0) throw e;
      }
    }
  } finally {
    await admin.disconnect();
  }
}
