import { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerRunner, recordsOfBatch } from '@mw/messaging';
import type { AnalyticsMetrics } from './analytics.metrics';
import type { AnalyticsProjector } from './analytics.service';

export interface AnalyticsConsumerSettings {
  /** The orders events topic (orders.orders.v1, or a private name in tests). */
  readonly topic: string;
  /** Its own consumer group: the read model has its own position in the topic. */
  readonly groupId: string;
  /** A new group replays the topic (earliest) or starts at its end (latest). */
  readonly fromBeginning: boolean;
  readonly partitionsConcurrently: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** Records applied in one transaction at most (group commit); a fetched batch larger than this is applied in chunks. */
  readonly maxBatch: number;
  /** A fetch is answered once this many bytes wait, or after `fetchMaxWaitMs` (the linger that fills a batch). */
  readonly fetchMinBytes: number;
  readonly fetchMaxWaitMs: number;
}

/**
 * The analytics consumer of the orders service: a plain kafkajs consumer in its own group (the
 * platform's Nest transport has one group per process, the saga's), so the read model keeps its
 * own offsets, can be replayed from the beginning and lags without holding up the saga.
 * Decoding, validation, retries (a MongoDB outage is waited out) and the dead-letter topic, named
 * with this group, come from its ConsumerRunner. It is not part of readiness: a stalled read
 * model must not take checkout out of rotation; it shows on /metrics (consumer up, lag).
 */
export class AnalyticsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: Consumer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly projector: AnalyticsProjector,
    private readonly settings: AnalyticsConsumerSettings,
    private readonly logger: Logger,
    private readonly metrics: AnalyticsMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const s = this.settings;
    const consumer = this.kafka.consumer({
      groupId: s.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: s.sessionTimeoutMs,
      heartbeatInterval: s.heartbeatIntervalMs,
      // Fetch linger (ADR 0051): the read model is eventual, so a fetch may wait for records to
      // accumulate; each partition's records then share one transaction instead of one each.
      minBytes: s.fetchMinBytes,
      maxWaitTimeInMs: s.fetchMaxWaitMs,
    });
    this.consumer = consumer;
    this.metrics.consumerUp.set(0);
    consumer.on(consumer.events.GROUP_JOIN, () => this.metrics.consumerUp.set(1));
    consumer.on(consumer.events.STOP, () => this.metrics.consumerUp.set(0));
    consumer.on(consumer.events.CRASH, (e) => {
      this.metrics.consumerUp.set(0);
      this.logger.error(
        { err: e.payload.error.message, restart: e.payload.restart, group: s.groupId },
        'analytics consumer crashed',
      );
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [s.topic], fromBeginning: s.fromBeginning });
    // Group commit (ADR 0051): a partition's fetched records are applied a chunk at a time, one
    // transaction per chunk; their offsets are resolved and committed only after it committed
    // (w: majority). A crash in between redelivers the chunk, and the markers make that a no-op.
    await consumer.run({
      partitionsConsumedConcurrently: s.partitionsConcurrently,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
        for (let from = 0; from < batch.messages.length; from += s.maxBatch) {
          if (!isRunning() || isStale()) return;
          const chunk = batch.messages.slice(from, from + s.maxBatch);
          this.metrics.batchRecords.observe(chunk.length);
          await this.runner.runBatch(
            'orders.orders.v1',
            recordsOfBatch(batch, chunk, heartbeat),
            (events) => this.projector.applyMany(events),
            (e) => this.projector.apply(e),
          );
          for (const m of chunk) resolveOffset(m.offset);
          await commitOffsetsIfNecessary();
        }
      },
    });
    this.logger.info(
      { topic: s.topic, group: s.groupId, from_beginning: s.fromBeginning },
      'analytics consumer started',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await this.consumer?.disconnect();
  }
}
