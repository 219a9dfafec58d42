import { Kafka, logLevel, LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { fixKafkajsIdleLoop, type KafkaSasl } from '@mw/platform';
import { dlqTopicOf, isTopicName } from '@mw/contracts';
import { ensureTopicSpecs } from '../topics/topic-admin';
import { dlqDefinition, streamDefinition, topicDefinitions, TopicPolicy, TopicSpec } from '../topics/topic-definitions';

// every kafkajs client of the process, Nest's transport included (tulios/kafkajs#1556)
fixKafkajsIdleLoop();

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * A kafkajs client whose logs go through the service's JSON logger, authenticated as the
 * principal `sasl` names (ADR 0009: every client of the project's brokers authenticates).
 */
export function createKafka(opts: {
  brokers: readonly string[];
  sasl: KafkaSasl | undefined;
  clientId: string;
  logger: Logger;
}): Kafka {
  return new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    ...(opts.sasl ? { sasl: { ...opts.sasl } } : {}),
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
 * Creates (or verifies) topics and their dead-letter topics by name, for tests and benchmarks on
 * private topics: a registry name gets its definition, any other name the definition of a stream
 * topic with `partitions`. Services declare their topics through `MessagingModule` (`topicSpecs`)
 * with replication from configuration; this helper uses a single broker's 1/1 unless told.
 */
export async function ensureTopics(
  kafka: Kafka,
  names: readonly string[],
  partitions: number,
  policy: TopicPolicy = { replicationFactor: 1, minInsyncReplicas: 1 },
): Promise<void> {
  const specs = new Map<string, TopicSpec>();
  for (const name of names) {
    const definition = isTopicName(name) ? topicDefinitions[name] : streamDefinition(partitions);
    specs.set(name, { name, definition });
    specs.set(dlqTopicOf(name), { name: dlqTopicOf(name), definition: dlqDefinition });
  }
  await ensureTopicSpecs(kafka, [...specs.values()], policy);
}
