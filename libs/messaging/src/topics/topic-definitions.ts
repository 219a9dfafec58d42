import { dlqTopicOf, TopicName } from '@mw/contracts';

/**
 * What a topic must look like. One place owns it (this file): services create missing topics
 * from it and verify existing ones at start (`ensureTopicSpecs`), instead of whichever service
 * starts first deciding. Replication is a property of the cluster, not of the topic's meaning,
 * so it comes from configuration (`TopicPolicy`).
 */
export interface TopicDefinition {
  /** Parallelism of a consumer group, and the key → partition mapping: never changed silently. */
  readonly partitions: number;
  readonly retentionMs: number;
  readonly cleanupPolicy: 'delete' | 'compact';
  /** Largest record the broker accepts on the topic; outbox entries are bounded by it when written. */
  readonly maxMessageBytes: number;
}

/** Replication of every topic of a cluster: KAFKA_REPLICATION_FACTOR / KAFKA_MIN_INSYNC_REPLICAS (local single broker: 1/1). */
export interface TopicPolicy {
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** max.message.bytes of every stream topic (1 MiB). */
export const MAX_MESSAGE_BYTES = 1_048_576;
/**
 * Room for the record's key, headers and batch framing beside the envelope: an outbox entry's
 * envelope may take at most max.message.bytes minus this.
 */
export const RECORD_OVERHEAD_BYTES = 4096;

/** The definition of an event or command stream: 7 days, delete, 1 MiB records. */
export const streamDefinition = (partitions: number): TopicDefinition => ({ partitions, retentionMs: 7 * DAY_MS, cleanupPolicy: 'delete', maxMessageBytes: MAX_MESSAGE_BYTES });

/** Every topic of the registry (`@mw/contracts` topics) has exactly one definition; a new topic without one does not compile. */
export const topicDefinitions = {
  'catalog.products.v1': streamDefinition(3),
  'catalog.categories.v1': streamDefinition(3),
  'inventory.commands.v1': streamDefinition(3),
  'inventory.events.v1': streamDefinition(3),
  'carts.checkout.v1': streamDefinition(3),
  'orders.orders.v1': streamDefinition(3),
} as const satisfies Record<TopicName, TopicDefinition>;

/**
 * Dead-letter topics: one partition (order of failures is kept, volume is small), kept 30 days so a
 * fix can be redriven long after the failure; a DLQ record carries the original value plus headers.
 */
export const dlqDefinition: TopicDefinition = { partitions: 1, retentionMs: 30 * DAY_MS, cleanupPolicy: 'delete', maxMessageBytes: MAX_MESSAGE_BYTES + 64 * 1024 };

/** The largest envelope an outbox entry may carry on any topic. */
export const maxEnvelopeBytes = Math.min(...Object.values(topicDefinitions).map((d) => d.maxMessageBytes)) - RECORD_OVERHEAD_BYTES;

/** A topic to create or verify: its actual name (private names in tests and benchmarks) and the definition it must match. */
export interface TopicSpec {
  readonly name: string;
  readonly definition: TopicDefinition;
}

/**
 * The specs of the topics a service uses, with their dead-letter topics. `bindings` maps each
 * registry topic to the name the service uses for it (the registry name in production, a private
 * name in tests and benchmarks); a private name gets its base topic's definition, with
 * `privatePartitions` when given (tests choose their own parallelism). A registry name always gets
 * its definition's partitions.
 */
export function topicSpecs(bindings: Partial<Record<TopicName, string>>, privatePartitions?: number): TopicSpec[] {
  const specs = new Map<string, TopicSpec>();
  for (const [base, name] of Object.entries(bindings) as [TopicName, string | undefined][]) {
    if (!name) continue;
    const def = topicDefinitions[base];
    const definition = name !== base && privatePartitions !== undefined ? { ...def, partitions: privatePartitions } : def;
    specs.set(name, { name, definition });
    specs.set(dlqTopicOf(name), { name: dlqTopicOf(name), definition: dlqDefinition });
  }
  return [...specs.values()];
}
