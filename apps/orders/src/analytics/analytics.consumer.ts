import { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { BatchConsumer, ConsumerRunner, InboundRecord, isReady } from '@mw/messaging';
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
  /** Offset commits at most this often (KAFKA_COMMIT_INTERVAL_MS; 0: after every chunk). */
  readonly commitIntervalMs: number;
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
  private readonly consumer: BatchConsumer;

  constructor(
    kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly projector: AnalyticsProjector,
    s: AnalyticsConsumerSettings,
    logger: Logger,
    private readonly metrics: AnalyticsMetrics,
  ) {
    // Group commit (ADR 0051): a partition's fetched records are applied a chunk at a time, one
    // transaction per chunk; their offsets are committed only after it committed (w: majority). A
    // crash in between redelivers the chunk, and the markers make that a no-op. Fetch linger: the
    // read model is eventual, so a fetch may wait for records to accumulate.
    this.consumer = new BatchConsumer(
      kafka,
      {
        name: 'analytics-consumer',
        groupId: s.groupId,
        topics: [s.topic],
        fromBeginning: s.fromBeginning,
        sessionTimeoutMs: s.sessionTimeoutMs,
        heartbeatIntervalMs: s.heartbeatIntervalMs,
        partitionsConcurrently: s.partitionsConcurrently,
        batchMax: s.maxBatch,
        fetch: { minBytes: s.fetchMinBytes, maxWaitMs: s.fetchMaxWaitMs },
        commitIntervalMs: s.commitIntervalMs,
        onStatus: (status) => this.metrics.consumerUp.set(isReady(status) ? 1 : 0),
      },
      (records) => this.applyChunk(records),
      undefined, // not part of readiness
      logger,
    );
  }

  private async applyChunk(records: readonly InboundRecord[]): Promise<void> {
    this.metrics.batchRecords.observe(records.length);
    await this.runner.runBatch(
      'orders.orders.v1',
      records,
      (events) => this.projector.applyMany(events),
      (e) => this.projector.apply(e),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await this.consumer.stop();
  }
}
