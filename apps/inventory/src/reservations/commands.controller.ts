import { Controller, Type } from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { recordFromContext } from '@mw/messaging';
import { CommandsHandler } from './commands.handler';

/**
 * The Kafka entry point for inventory.commands.v1. Built per topic name so tests and benchmarks can
 * run on a private topic without touching the shared one.
 */
export function commandsController(topic: string): Type<unknown> {
  @Controller()
  class InventoryCommandsController {
    constructor(private readonly handler: CommandsHandler) {}

    @EventPattern(topic)
    onCommand(@Ctx() ctx: KafkaContext): Promise<void> {
      return this.handler.handle(recordFromContext(ctx));
    }
  }
  return InventoryCommandsController;
}
