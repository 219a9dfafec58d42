import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerRunner, KAFKA } from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import type { CatalogConfig } from '../config';
import { CATALOG_CONFIG } from '../shared/tokens';
import { ProjectorService } from './projector.service';

export const PRODUCTS_TOPIC = 'catalog.products.v1';

/**
 * The projector's Kafka consumer, in its own consumer group. A plain kafkajs consumer (not the
 * Nest transport) so partitions are consumed concurrently and a new group may start at the
 * latest offset (tests) or replay the topic (a fresh read side). Validation, retries and the
 * dead-letter topic come from ConsumerRunner.
 */
@Injectable()
export class ProjectorConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: Consumer | undefined;
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
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.config.PROJECTOR_GROUP_ID,
      allowAutoTopicCreation: false,
      sessionTimeout: 30_000,
    });
    this.consumer = consumer;
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
    consumer.on(consumer.events.FETCH_START, () => {
      if (joined) this.joinedResolve?.();
    });
    consumer.on(consumer.events.CRASH, (e) =>
      this.logger.error({ err: e.payload.error.message }, 'projector consumer crashed'),
    );
    this.health.register({
      name: 'projector-consumer',
      check: async () => void (joined || (await Promise.reject(new Error('not joined')))),
    });
    await consumer.connect();
    await consumer.subscribe({
      topics: [this.config.PROJECTOR_TOPIC],
      fromBeginning: this.config.PROJECTOR_START_FROM === 'earliest',
    });
    await consumer.run({
      partitionsConsumedConcurrently: this.config.PROJECTOR_PARTITIONS_CONCURRENTLY,
      eachMessage: async ({ topic, partition, message }) => {
        await this.runner.run(
          PRODUCTS_TOPIC,
          {
            topic,
            partition,
            offset: message.offset,
            key: message.key,
            value: message.value,
            headers: message.headers,
          },
          (e) => this.projector.apply(e),
        );
      },
    });
    this.logger.info(
      {
        topic: this.config.PROJECTOR_TOPIC,
        group: this.config.PROJECTOR_GROUP_ID,
        from: this.config.PROJECTOR_START_FROM,
      },
      'projector consuming',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
