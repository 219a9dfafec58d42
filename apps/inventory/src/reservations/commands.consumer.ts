import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { BatchConsumer, ConsumerRunner, KAFKA, serviceBatchConsumerOptions } from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import { InventoryConfig } from '../config';
import { INVENTORY_CONFIG } from '../inventory.providers';
import { CommandsHandler } from './commands.handler';

/**
 * inventory.commands.v1 consumed a partition batch at a time (ADR 0012 §4): a {@link BatchConsumer}
 * in the service's group (Nest's Kafka transport hands over one message at a time). A fetched batch
 * is handled in chunks of `INVENTORY_COMMANDS_BATCH_MAX` (`CommandsHandler.handleBatch`); a chunk's
 * offsets are committed only after its work was acknowledged by the majority, so a crash in between
 * redelivers the chunk, and every step is idempotent. Readiness follows the group.
 */
@Injectable()
export class CommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: BatchConsumer;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    private readonly runner: ConsumerRunner,
    handler: CommandsHandler,
    health: HealthRegistry,
    @Inject(INVENTORY_CONFIG) c: Readonly<InventoryConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.consumer = new BatchConsumer(
      kafka,
      serviceBatchConsumerOptions(c, 'commands-consumer', [c.INVENTORY_COMMANDS_TOPIC], c.INVENTORY_COMMANDS_BATCH_MAX),
      (records) => handler.handleBatch(records),
      health,
      logger,
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
