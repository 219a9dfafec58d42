import { Admin, ConfigResourceTypes, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { TopicDefinition, TopicPolicy, TopicSpec } from './topic-definitions';

/** Start fails with this when a topic cannot be made to match its definition (one line, every difference). */
export class TopicMismatchError extends Error {
  readonly code = 'MESSAGING.TOPIC_MISMATCH';
  constructor(readonly problems: readonly string[]) {
    super(`Kafka topics do not match their definitions (libs/messaging/src/topics/topic-definitions.ts): ${problems.join('; ')}`);
    this.name = 'TopicMismatchError';
  }
}

/** Raised before anything is created when the replication settings cannot work on this cluster. */
export class TopicPolicyError extends Error {
  readonly code = 'MESSAGING.TOPIC_POLICY_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'TopicPolicyError';
  }
}

/** The topic-level configs a definition owns, as Kafka names them. */
export function ownedConfigs(def: TopicDefinition, policy: TopicPolicy): Record<string, string> {
  return {
    'cleanup.policy': def.cleanupPolicy,
    'retention.ms': String(def.retentionMs),
    'max.message.bytes': String(def.maxMessageBytes),
    'min.insync.replicas': String(policy.minInsyncReplicas),
  };
}

/** Configs whose change is safe on a live topic; the rest (cleanup.policy) changes what the topic means and fails start. */
const SAFE_TO_ALTER = new Set(['retention.ms', 'max.message.bytes', 'min.insync.replicas']);
/** kafkajs' configSource for a dynamic topic-level override. */
const TOPIC_CONFIG_SOURCE = 1;

export function validatePolicy(policy: TopicPolicy, brokers?: number): void {
  if (policy.minInsyncReplicas > policy.replicationFactor) {
    throw new TopicPolicyError(
      `KAFKA_MIN_INSYNC_REPLICAS (${policy.minInsyncReplicas}) exceeds KAFKA_REPLICATION_FACTOR (${policy.replicationFactor}): no acks=all write could ever succeed`,
    );
  }
  if (brokers !== undefined && brokers < policy.replicationFactor) {
    throw new TopicPolicyError(`KAFKA_REPLICATION_FACTOR is ${policy.replicationFactor} but the cluster has ${brokers} broker(s)`);
  }
}

/**
 * Creates the missing topics with their definition's settings and verifies the existing ones:
 * partition count and replication factor must match (never changed silently — start fails with
 * one line naming every difference); owned configs that differ are set when that is safe
 * (retention, max message size, min ISR), other topic-level overrides are kept; a different
 * cleanup policy fails start. Several instances may run this at once.
 */
export async function ensureTopicSpecs(kafka: Kafka, specs: readonly TopicSpec[], policy: TopicPolicy, logger?: Logger): Promise<void> {
  if (specs.length === 0) return;
  const admin: Admin = kafka.admin();
  await admin.connect();
  try {
    validatePolicy(policy);
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    if (missing.length > 0) {
      // Live brokers are counted only when a topic is to be created (it needs RF of them now). Topics that
      // exist are verified by their assignment instead: a start while one broker of three is down, SIGKILLed
      // or cut off must not fail on a count the cluster does not need (issue 32: restarted services exited
      // with "RF 3 but 2 brokers" while min ISR 2 kept every topic writable).
      validatePolicy(policy, (await admin.describeCluster()).brokers.length);
      // false (not an error) when another instance created them first; verified below either way
      await createRacing(admin, {
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.name,
          numPartitions: s.definition.partitions,
          replicationFactor: policy.replicationFactor,
          configEntries: Object.entries(ownedConfigs(s.definition, policy)).map(([name, value]) => ({ name, value })),
        })),
      });
      logger?.info({ topics: missing.map((s) => s.name) }, 'created topics from their definitions');
    }
    await untilLeadersKnown(() => verify(admin, specs, policy, logger));
  } finally {
    await admin.disconnect();
  }
}

/**
 * A topic another instance is creating at the same moment exists before its partitions have
 * leaders: creating it answers TOPIC_ALREADY_EXISTS (kafkajs then waits for no leader) and reading
 * its metadata answers UNKNOWN_TOPIC_OR_PARTITION / LEADER_NOT_AVAILABLE for a short while. Those
 * retriable answers are waited out (bounded); any other error fails start as before.
 */
const LEADER_WAIT_ATTEMPTS = 20;
const LEADER_WAIT_MS = 250;

function leaderNotYetKnown(e: unknown): boolean {
  const err = e as { retriable?: boolean; type?: string; errors?: unknown[] };
  if (err.type === 'UNKNOWN_TOPIC_OR_PARTITION' || err.type === 'LEADER_NOT_AVAILABLE') return true;
  return Array.isArray(err.errors) && err.errors.length > 0 && err.errors.every(leaderNotYetKnown);
}

async function untilLeadersKnown<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (e) {
      if (attempt >= LEADER_WAIT_ATTEMPTS || !leaderNotYetKnown(e)) throw e;
      await new Promise((r) => setTimeout(r, LEADER_WAIT_MS));
    }
  }
}

async function createRacing(admin: Admin, request: Parameters<Admin['createTopics']>[0]): Promise<void> {
  try {
    await untilLeadersKnown(() => admin.createTopics(request));
  } catch (e) {
    // some of the topics were created by another instance in between: the verify step waits for them
    const errors = (e as { errors?: { type?: string }[] }).errors;
    if (!Array.isArray(errors) || !errors.every((x) => x.type === 'TOPIC_ALREADY_EXISTS')) throw e;
  }
}

async function verify(admin: Admin, specs: readonly TopicSpec[], policy: TopicPolicy, logger?: Logger): Promise<void> {
  const names = specs.map((s) => s.name);
  const meta = new Map((await admin.fetchTopicMetadata({ topics: names })).topics.map((t) => [t.name, t]));
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
  });
  const configs = new Map(described.resources.map((r) => [r.resourceName, r.configEntries]));
  const problems: string[] = [];
  const alters: { name: string; entries: { name: string; value: string }[]; changed: string[] }[] = [];
  for (const spec of specs) {
    const m = meta.get(spec.name);
    if (!m) {
      problems.push(`${spec.name}: missing after creation`);
      continue;
    }
    if (m.partitions.length !== spec.definition.partitions) {
      problems.push(`${spec.name}: ${m.partitions.length} partitions, defined ${spec.definition.partitions} (partitions are never changed at start: keys would move)`);
    }
    const rf = Math.min(...m.partitions.map((p) => p.replicas.length));
    if (rf !== policy.replicationFactor) problems.push(`${spec.name}: replication factor ${rf}, configured ${policy.replicationFactor}`);
    const entries = configs.get(spec.name) ?? [];
    const actual = new Map(entries.map((e) => [e.configName, e.configValue]));
    const changed: string[] = [];
    for (const [key, want] of Object.entries(ownedConfigs(spec.definition, policy))) {
      const have = actual.get(key);
      if (have === want) continue;
      if (SAFE_TO_ALTER.has(key)) changed.push(`${key} ${have ?? '(unset)'} → ${want}`);
      else problems.push(`${spec.name}: ${key}=${have ?? '(unset)'}, defined ${want}`);
    }
    if (changed.length > 0) {
      // AlterConfigs replaces the topic's whole override set: keep the overrides we do not own.
      const keep = entries.filter((e) => e.configSource === TOPIC_CONFIG_SOURCE && !(e.configName in ownedConfigs(spec.definition, policy)));
      alters.push({
        name: spec.name,
        changed,
        entries: [...keep.map((e) => ({ name: e.configName, value: e.configValue })), ...Object.entries(ownedConfigs(spec.definition, policy)).map(([name, value]) => ({ name, value }))],
      });
    }
  }
  if (problems.length > 0) throw new TopicMismatchError(problems);
  if (alters.length > 0) {
    await admin.alterConfigs({
      validateOnly: false,
      resources: alters.map((a) => ({ type: ConfigResourceTypes.TOPIC, name: a.name, configEntries: a.entries })),
    });
    for (const a of alters) logger?.warn({ topic: a.name, changed: a.changed }, 'topic configs set to their definition');
  }
}
