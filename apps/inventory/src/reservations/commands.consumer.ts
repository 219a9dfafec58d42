import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConsumerRunner, ConsumerSignal, ConsumerStatus, isReady, KAFKA, nextStatus, recordsOfBatch } from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import { InventoryConfig } from '../config';
import { INVENTORY_CONFIG } from '../inventory.providers';
import { CommandsHandler } from './commands.handler';

/**
 * inventory.commands.v1 consumed a partition batch at a time (ADR 0012 §4): a plain kafkajs consumer
 * in the service's group (Nest's Kafka transport hands over one message at a time). A fetched batch
 * is handled in chunks of `INVENTORY_COMMANDS_BATCH_MAX` (`CommandsHandler.handleBatch`); a chunk's
 * offsets are resolved and committed only after its work was acknowledged by the majority, so a
 * crash in between redelivers the chunk, and every step is idempotent. Readiness follows the group.
 */
@Injectable()
export class CommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: Consumer | undefined;
  private status: ConsumerStatus = 'starting';

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly handler: CommandsHandler,
    private readonly health: HealthRegistry,
    @Inject(INVENTORY_CONFIG) private readonly config: Readonly<InventoryConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private signal(s: ConsumerSignal): void {
    const before = this.status;
    this.status = nextStatus(this.status, s);
    if (before !== this.status) this.logger.info({ from: before, to: this.status }, 'commands consumer status');
  }

  async onApplicationBootstrap(): Promise<void> {
    const c = this.config;
    const consumer = this.kafka.consumer({
      groupId: c.KAFKA_GROUP_ID,
      allowAutoTopicCreation: false,
      sessionTimeout: c.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatInterval: c.KAFKA_HEARTBEAT_INTERVAL_MS,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, () => this.signal({ kind: 'joined' }));
    consumer.on(consumer.events.STOP, () => this.signal({ kind: 'stopped' }));
    consumer.on(consumer.events.CRASH, (e) => {
      this.logger.error(
        { err: e.payload.error.message, error_name: e.payload.error.name, restart: e.payload.restart },
        'commands consumer crashed',
      );
      this.signal({ kind: 'crashed', restart: e.payload.restart });
    });
    this.health.register({
      name: 'commands-consumer',
      check: async () => {
        if (!isReady(this.status)) throw new Error(`consumer ${this.status}`);
      },
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [c.INVENTORY_COMMANDS_TOPIC], fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: c.KAFKA_PARTITIONS_CONCURRENTLY,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.consume(payload),
    });
    this.logger.info(
      { topic: c.INVENTORY_COMMANDS_TOPIC, group: c.KAFKA_GROUP_ID, batch_max: c.INVENTORY_COMMANDS_BATCH_MAX },
      'inventory commands consuming',
    );
  }

  private async consume({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const max = this.config.INVENTORY_COMMANDS_BATCH_MAX;
    for (let from = 0; from < batch.messages.length; from += max) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(from, from + max);
      await this.handler.handleBatch(recordsOfBatch(batch, chunk, heartbeat));
      for (const m of chunk) resolveOffset(m.offset);
      await commitOffsetsIfNecessary();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await this.consumer?.disconnect();
  }
}
