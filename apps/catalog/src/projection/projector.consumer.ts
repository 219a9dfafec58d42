import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerRunner, ConsumerSignal, ConsumerStatus, isReady, KAFKA, nextStatus } from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import { CatalogConfig, projectorConcurrency } from '../config';
import { CATALOG_CONFIG } from '../shared/tokens';
import { ProjectionMetrics } from './projection.metrics';
import { FETCH_BYTES_PER_PARTITION, ProjectorBatches } from './projector-batch';
import { ProjectorService } from './projector.service';

export { PRODUCTS_TOPIC } from './projector-batch';

/**
 * The projector's Kafka consumer, in its own consumer group. A plain kafkajs consumer (not the
 * Nest transport) so every partition is consumed concurrently, a fetched batch is applied at once
 * (ProjectorBatches) and a new group may start at the latest offset (tests) or replay the topic
 * (a fresh read side). Validation, retries and the dead-letter topic come from ConsumerRunner.
 */
@Injectable()
export class ProjectorConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: Consumer | undefined;
  private status: ConsumerStatus = 'starting';
  private joinedResolve: (() => void) | undefined;
  /** Resolves once the group has joined and fetching started (offsets resolved). */
  readonly ready = new Promise<void>((r) => (this.joinedResolve = r));

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly projector: ProjectorService,
    private readonly health: HealthRegistry,
    @Inject(CATALOG_CONFIG) private readonly config: CatalogConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: ProjectionMetrics,
  ) {}

  /** Readiness follows the consumer's kafkajs events: joined → ready; crash or stop → not ready. */
  private signal(s: ConsumerSignal): void {
    const before = this.status;
    this.status = nextStatus(this.status, s);
    this.metrics.consumerUp.set(isReady(this.status) ? 1 : 0);
    if (before !== this.status)
      this.logger.info({ from: before, to: this.status }, 'projector consumer status');
  }

  async onApplicationBootstrap(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.config.PROJECTOR_GROUP_ID,
      allowAutoTopicCreation: false,
      sessionTimeout: this.config.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatInterval: this.config.KAFKA_HEARTBEAT_INTERVAL_MS,
      maxBytesPerPartition: FETCH_BYTES_PER_PARTITION,
    });
    this.consumer = consumer;
    this.metrics.consumerUp.set(0);
    consumer.on(consumer.events.GROUP_JOIN, () => this.signal({ kind: 'joined' }));
    // Another member may have applied this member's partitions meanwhile: the seen versions kept
    // in memory are dropped when a rebalance begins and again once the new assignment is joined.
    for (const event of [
      consumer.events.REBALANCING,
      consumer.events.GROUP_JOIN,
      consumer.events.STOP,
      consumer.events.CRASH,
    ] as const)
      consumer.on(event, () => this.projector.rebalanced());
    consumer.on(consumer.events.FETCH_START, () => {
      if (isReady(this.status)) this.joinedResolve?.();
    });
    consumer.on(consumer.events.STOP, () => this.signal({ kind: 'stopped' }));
    consumer.on(consumer.events.CRASH, (e) => {
      this.metrics.consumerCrashes.inc({ restart: String(e.payload.restart) });
      this.logger.error(
        { err: e.payload.error.message, error_name: e.payload.error.name, restart: e.payload.restart },
        'projector consumer crashed',
      );
      this.signal({ kind: 'crashed', restart: e.payload.restart });
    });
    this.health.register({
      name: 'projector-consumer',
      check: async () => {
        if (!isReady(this.status)) throw new Error(`consumer ${this.status}`);
      },
    });
    await consumer.connect();
    await consumer.subscribe({
      topics: [this.config.PROJECTOR_TOPIC],
      fromBeginning: this.config.PROJECTOR_START_FROM === 'earliest',
    });
    const batches = new ProjectorBatches(
      this.runner,
      this.projector,
      this.logger,
      Math.max(100, Math.floor(this.config.KAFKA_HEARTBEAT_INTERVAL_MS / 3)),
    );
    await consumer.run({
      partitionsConsumedConcurrently: projectorConcurrency(this.config),
      // offsets are resolved by ProjectorBatches once Cassandra acknowledged, never for a batch left half-way
      eachBatchAutoResolve: false,
      // Each record carries the heartbeat: the partition is kept while the runner waits out a Cassandra outage (ADR 0004).
      eachBatch: (payload) => batches.consume(payload),
    });
    this.logger.info(
      {
        topic: this.config.PROJECTOR_TOPIC,
        group: this.config.PROJECTOR_GROUP_ID,
        from: this.config.PROJECTOR_START_FROM,
        partitions_concurrently: projectorConcurrency(this.config),
      },
      'projector consuming',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
