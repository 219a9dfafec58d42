import type { BatchConsumerOptions } from '../consumer/batch-consumer';

/** The options of a test's BatchConsumer: one topic from the beginning, one partition at a time, short timeouts. */
export function oneTopicOptions(name: string, groupId: string, topic: string, batchMax: number): BatchConsumerOptions {
  return {
    name,
    groupId,
    topics: [topic],
    fromBeginning: true,
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1000,
    partitionsConcurrently: 1,
    batchMax,
  };
}
