import { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { HealthRegistry } from '@mw/platform';
import type { InboundRecord } from './consumer-runner';
import { ConsumerSignal, ConsumerStatus, isReady, nextStatus } from './consumer-status';
import { recordsOfBatch } from './nest-kafka';

export interface BatchConsumerOptions {
  /** Names the health check (`<name>`) and the log lines. */
  readonly name: string;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly partitionsConcurrently: number;
  /** Records handed to the handler at once; a larger fetched batch is handled in chunks of this many. */
  readonly batchMax: number;
  /**
   * Fetch linger: the broker answers once this many bytes wait or after `maxWaitMs` (kafkajs
   * defaults: 1 byte, 5 s) — a consumer whose effect may wait fills its batches this way.
   */
  readonly fetch?: { readonly minBytes: number; readonly maxWaitMs: number };
  /**
   * Client-side linger: after a fetched partition batch smaller than `batchMax` (no backlog), the
   * next fetch waits this many ms (kafkajs fetches again only once the batches of the last fetch
   * are handled), so the records that arrive meanwhile come as one batch. Unlike `fetch`, an idle
   * consumer keeps its long poll: it fetches no more often than without a linger.
   */
  readonly lingerMs?: number;
  /**
   * Offset commits at most this often (ms; 0 or absent: after every chunk). A handled chunk's
   * offset waits, with the others handled meanwhile, for one commit of every partition when the
   * interval is up — not one commit request per chunk. Still only after the chunk's handler
   * resolved, so a crash redelivers at most the chunks of one interval (the handlers are
   * idempotent). A failing chunk, a stop and a rebalance are met as below (`BatchConsumer`).
   */
  readonly commitIntervalMs?: number;
  /** Called on every status change (a metric); besides, or instead of, the readiness check. */
  readonly onStatus?: (status: ConsumerStatus) => void;
}

/** A partition's next offset to read. */
interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

function byTopic(offsets: readonly PartitionOffset[]): { topic: string; partitions: { partition: number; offset: string }[] }[] {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const o of offsets) topics.set(o.topic, [...(topics.get(o.topic) ?? []), { partition: o.partition, offset: o.offset }]);
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

/** The pause before a consumer that crashed for good is replaced: doubling from the first to the cap while it keeps crashing. */
const RELAUNCH_FIRST_MS = 1000;
const RELAUNCH_MAX_MS = 30_000;

/** The consumer settings every service's config carries (libs/platform's base config, ADR 0004). */
export interface ServiceConsumerConfig {
  readonly KAFKA_GROUP_ID: string;
  readonly KAFKA_SESSION_TIMEOUT_MS: number;
  readonly KAFKA_HEARTBEAT_INTERVAL_MS: number;
  readonly KAFKA_PARTITIONS_CONCURRENTLY: number;
  /** Pause before the next fetch after a batch smaller than a chunk (0: off). */
  readonly KAFKA_CONSUMER_LINGER_MS?: number;
  /** Offset commits at most this often (0: after every chunk). */
  readonly KAFKA_COMMIT_INTERVAL_MS?: number;
}

/** A service's batch consumer in its own group, from the beginning, with the service's timeouts and parallelism. */
export function serviceBatchConsumerOptions(
  c: ServiceConsumerConfig,
  name: string,
  topics: readonly string[],
  batchMax: number,
): BatchConsumerOptions {
  return {
    name,
    groupId: c.KAFKA_GROUP_ID,
    topics,
    fromBeginning: true,
    sessionTimeoutMs: c.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: c.KAFKA_HEARTBEAT_INTERVAL_MS,
    partitionsConcurrently: c.KAFKA_PARTITIONS_CONCURRENTLY,
    batchMax,
    ...(c.KAFKA_CONSUMER_LINGER_MS ? { lingerMs: c.KAFKA_CONSUMER_LINGER_MS } : {}),
    ...(c.KAFKA_COMMIT_INTERVAL_MS ? { commitIntervalMs: c.KAFKA_COMMIT_INTERVAL_MS } : {}),
  };
}

/**
 * Handles a chunk of one fetched partition batch (records of one topic and partition, in offset
 * order). Resolves only once its effects are durable: the chunk's offsets are committed after it.
 */
export type ChunkHandler = (records: readonly InboundRecord[]) => Promise<void>;

/**
 * A plain kafkajs consumer that hands each fetched partition batch to a handler in chunks (group
 * commit, ADR 0012 §4) — what Nest's Kafka transport cannot, as it hands over one message at a
 * time. A chunk's offsets are resolved and committed only after the handler resolved, so a crash in
 * between redelivers the chunk (the handler's steps must be idempotent). A chunk is not started
 * once the consumer stops or the group has rebalanced.
 *
 * Commits (ADR 0015 §14): kafkajs' own auto-commit is off, this class commits. After every chunk by
 * default; with `commitIntervalMs`, the handled chunks' offsets wait and one request commits every
 * partition's newest when the interval is up. Either way a commit covers the batch's commit marker
 * (a transactional producer's control record after its last record). A chunk that fails first
 * commits the chunks handled before it, so they are not handed over again; a stop commits what was
 * handled before it leaves the group; a rebalance drops what waits (a commit under the new generation
 * could move back a partition another member now owns) — those records come again. Readiness (a health check named after the
 * consumer, when a registry is given) follows the group: joined → ready; crash or stop → not ready.
 *
 * kafkajs restarts a consumer only after a retriable failure. One it calls non-retriable — seen when
 * a broker restarts mid-handshake ("SASL SCRAM SHA512 authentication failed: Closed connection") —
 * would leave the service consuming nothing until its process is replaced; so a consumer that
 * crashed for good is replaced by a new one in the same group after a pause (1 s, doubling to 30 s
 * while it keeps crashing, back to 1 s once a group is joined).
 */
export class BatchConsumer {
  private consumer: Consumer | undefined;
  private state: ConsumerStatus = 'starting';
  private stopping = false;
  private relaunchDelayMs = RELAUNCH_FIRST_MS;
  private relaunchTimer: NodeJS.Timeout | undefined;
  /** New consumers made after a crash for good (a metric for tests and operators). */
  relaunches = 0;
  /** OffsetCommit requests sent (a metric for tests and operators). */
  commitRequests = 0;
  /** The next offset of each partition whose handled chunks are not committed yet, by `topic:partition`. */
  private readonly pending = new Map<string, PartitionOffset>();
  private commitTimer: NodeJS.Timeout | undefined;
  /** Commits run one after another, so an older offset never lands after a newer one. */
  private commits: Promise<void> = Promise.resolve();
  /** Counts the group joins: offsets of an earlier generation are not put back after a failed commit. */
  private joins = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: BatchConsumerOptions,
    private readonly handle: ChunkHandler,
    /** Where readiness is registered; undefined for a consumer that must not take the service out of rotation. */
    private readonly health: HealthRegistry | undefined,
    private readonly logger: Logger,
  ) {}

  get status(): ConsumerStatus {
    return this.state;
  }

  private signal(s: ConsumerSignal): void {
    const before = this.state;
    this.state = nextStatus(this.state, s);
    this.options.onStatus?.(this.state);
    if (before !== this.state)
      this.logger.info({ consumer: this.options.name, from: before, to: this.state }, 'consumer status');
  }

  async start(): Promise<void> {
    const o = this.options;
    this.stopping = false;
    o.onStatus?.(this.state);
    this.health?.register({
      name: o.name,
      check: async () => {
        if (!isReady(this.state)) throw new Error(`consumer ${this.state}`);
      },
    });
    await this.launch();
    this.logger.info(
      { consumer: o.name, topics: o.topics, group: o.groupId, batch_max: o.batchMax },
      'consuming in batches',
    );
  }

  /** A kafkajs consumer in the group, subscribed and running. */
  private async launch(): Promise<void> {
    const o = this.options;
    const consumer = this.kafka.consumer({
      groupId: o.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: o.sessionTimeoutMs,
      heartbeatInterval: o.heartbeatIntervalMs,
      ...(o.fetch ? { minBytes: o.fetch.minBytes, maxWaitTimeInMs: o.fetch.maxWaitMs } : {}),
    });
    this.consumer = consumer;
    consumer.on(consumer.events.REQUEST, (e) => {
      if (e.payload.apiName === 'OffsetCommit') this.commitRequests++;
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.joins++;
      this.pending.clear();
      this.relaunchDelayMs = RELAUNCH_FIRST_MS;
      this.signal({ kind: 'joined' });
    });
    consumer.on(consumer.events.STOP, () => this.signal({ kind: 'stopped' }));
    consumer.on(consumer.events.CRASH, (e) => {
      this.logger.error(
        {
          consumer: o.name,
          err: e.payload.error.message,
          error_name: e.payload.error.name,
          restart: e.payload.restart,
        },
        'consumer crashed',
      );
      this.signal({ kind: 'crashed', restart: e.payload.restart });
      if (!e.payload.restart) this.relaunchLater(consumer);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [...o.topics], fromBeginning: o.fromBeginning });
    await consumer.run({
      partitionsConsumedConcurrently: o.partitionsConcurrently,
      eachBatchAutoResolve: false,
      autoCommit: false,
      eachBatch: (payload) => this.consume(payload),
    });
  }

  /** Replaces a consumer that crashed for good with a new one, after a pause; again if that one cannot start. */
  private relaunchLater(dead: Consumer): void {
    if (this.stopping || this.relaunchTimer) return;
    const delay = this.relaunchDelayMs;
    this.relaunchDelayMs = Math.min(RELAUNCH_MAX_MS, delay * 2);
    this.logger.warn(
      { consumer: this.options.name, in_ms: delay },
      'consumer crashed for good; a new one joins the group after a pause',
    );
    this.relaunchTimer = setTimeout(() => {
      this.relaunchTimer = undefined;
      void this.relaunch(dead);
    }, delay);
  }

  private async relaunch(dead: Consumer): Promise<void> {
    await dead.disconnect().catch(() => undefined);
    if (this.stopping) return;
    this.relaunches++;
    this.signal({ kind: 'relaunching' });
    try {
      await this.launch();
    } catch (e) {
      this.logger.error(
        { consumer: this.options.name, err: (e as Error).message },
        'a new consumer could not start; trying again',
      );
      if (this.consumer) this.relaunchLater(this.consumer);
    }
  }

  private async consume({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    const max = this.options.batchMax;
    // the payload's commit, not the consumer's: it still commits while a stop waits for this batch
    const commitNow = (offsets: readonly PartitionOffset[]): Promise<void> =>
      commitOffsetsIfNecessary({ topics: byTopic(offsets) });
    for (let from = 0; from < batch.messages.length; from += max) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(from, from + max);
      try {
        await this.handle(recordsOfBatch(batch, chunk, heartbeat));
      } catch (e) {
        // the chunks handled before this one are not handed over again
        await this.commitPending(commitNow).catch(() => undefined);
        throw e;
      }
      for (const m of chunk) resolveOffset(m.offset);
      // past the batch's last offset when this chunk ends it: a transaction's commit marker follows
      // its last record and is never handed over, and committing only past the record left the
      // marker to a second commit
      const last = from + max >= batch.messages.length ? batch.lastOffset() : chunk[chunk.length - 1]!.offset;
      this.pending.set(`${batch.topic}:${batch.partition}`, {
        topic: batch.topic,
        partition: batch.partition,
        offset: (BigInt(last) + 1n).toString(),
      });
      if (this.stopping || !this.options.commitIntervalMs) await this.commitPending(commitNow);
      else this.commitLater(this.options.commitIntervalMs);
    }
    const linger = this.options.lingerMs ?? 0;
    if (linger > 0 && batch.messages.length < max && isRunning() && !isStale()) {
      await new Promise((resolve) => setTimeout(resolve, linger));
    }
  }

  /** Commits every partition's waiting offset in one request, after the commits before it. */
  private commitPending(commit: (offsets: readonly PartitionOffset[]) => Promise<void>): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.pending.size === 0) return;
      const joins = this.joins;
      const offsets = [...this.pending.values()];
      this.pending.clear();
      try {
        await commit(offsets);
      } catch (e) {
        // back, unless a newer offset of the partition, or a new generation, came meanwhile
        if (joins === this.joins) {
          for (const o of offsets) {
            const key = `${o.topic}:${o.partition}`;
            if (!this.pending.has(key)) this.pending.set(key, o);
          }
        }
        throw e;
      }
    };
    const done = this.commits.then(run);
    this.commits = done.catch(() => undefined);
    return done;
  }

  /** One commit of what waits when the interval is up (a timer; the chunk's handling goes on). */
  private commitLater(intervalMs: number): void {
    if (this.commitTimer) return;
    this.commitTimer = setTimeout(() => {
      this.commitTimer = undefined;
      void this.commitPending((offsets) => this.consumerCommit(offsets)).catch((e: Error) =>
        this.logger.warn(
          { consumer: this.options.name, err: e.message },
          'offset commit failed; tried again with the next one',
        ),
      );
    }, intervalMs);
    this.commitTimer.unref();
  }

  private async consumerCommit(offsets: readonly PartitionOffset[]): Promise<void> {
    await this.consumer?.commitOffsets(offsets.map((o) => ({ ...o })));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.relaunchTimer);
    this.relaunchTimer = undefined;
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    // what was handled is committed while the consumer is still a member; a chunk in flight commits
    // itself when it ends (stopping), before kafkajs leaves the group
    await this.commitPending((offsets) => this.consumerCommit(offsets)).catch((e: Error) =>
      this.logger.warn({ consumer: this.options.name, err: e.message }, 'offset commit at stop failed'),
    );
    await this.consumer?.disconnect();
  }
}
