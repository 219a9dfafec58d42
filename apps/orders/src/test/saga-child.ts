/**
 * Runs the saga's batch consumer (SagaConsumer: the production classes, plain, no Nest) in a process
 * of its own and stops for good right after the first bulkWrite of two or more transitions has been
 * acknowledged by the majority — before the chunk's offsets are committed — so a test can SIGKILL it
 * exactly there. Nudges go nowhere: what it wrote waits for the live service's pollers.
 * argv: env (JSON: the orders settings of the test, as loadOrdersConfig reads them)
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { createConsumerRunner, createKafka, KafkaPublisher } from '@mw/messaging';
import { createMongoClient } from '@mw/persistence';
import { HealthRegistry, kafkaSaslOf } from '@mw/platform';
import { pauseForKill } from '@mw/testing';
import { loadOrdersConfig } from '../config';
import { CheckoutService } from '../orders/checkout.service';
import { sagaTimeouts } from '../orders/orders.module';
import { OrdersRepository } from '../orders/orders.repository';
import { SagaConsumer } from '../saga/saga.consumer';
import { SagaMessages } from '../saga/saga-messages';
import { SagaNudges, SagaService } from '../saga/saga.service';

const [envJson] = process.argv.slice(2) as [string];

class StopAfterBulk extends OrdersRepository {
  override async transitionMany(...args: Parameters<OrdersRepository['transitionMany']>): Promise<boolean[]> {
    const written = await super.transitionMany(...args);
    if (args[0].length >= 2) await pauseForKill(`after-bulk ${written.filter(Boolean).length}`);
    return written;
  }
}

async function main(): Promise<void> {
  const config = loadOrdersConfig(JSON.parse(envJson) as Record<string, string>);
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, sasl: kafkaSaslOf(config), clientId: 'saga-child', logger });
  const client = await createMongoClient(config.MONGO_URL).connect();
  const repo = new StopAfterBulk(client.db(config.MONGO_DB));
  const messages = new SagaMessages({ inventoryCommands: config.INVENTORY_COMMANDS_TOPIC, orderEvents: config.ORDERS_EVENTS_TOPIC }, config.STOCK_HOLD_SECONDS);
  const nudges: SagaNudges = { outbox: () => undefined, payment: () => undefined };
  const saga = new SagaService(repo, messages, sagaTimeouts(config), nudges, logger);
  const checkout = new CheckoutService(repo, messages, config.ZONES, sagaTimeouts(config), nudges, logger, { inc: () => undefined });
  const health = new HealthRegistry();
  const runner = createConsumerRunner(new KafkaPublisher(kafka), logger, config.KAFKA_GROUP_ID, new Registry(), health, undefined);
  await new SagaConsumer(kafka, runner, checkout, saga, health, config, logger).onApplicationBootstrap();
  process.stdout.write('saga-child consuming\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
