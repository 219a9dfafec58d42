/**
 * A relay in its own process, so the test can kill it with SIGKILL mid-way.
 * argv: mongoUrl dbName collection brokers; SASL credentials from KAFKA_SASL_MECHANISM / KAFKA_USERNAME / KAFKA_PASSWORD (the test's).
 */
import { createMongoClient } from '@mw/persistence';
import { testEnv } from '@mw/testing';
import pino from 'pino';
import { createKafka } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { OutboxRelay } from '../outbox/outbox-relay';

async function main(): Promise<void> {
  const [mongoUrl, dbName, collection, brokers] = process.argv.slice(2) as [string, string, string, string];
  const logger = pino({ level: 'warn' });
  const client = await createMongoClient(mongoUrl).connect();
  const publisher = new KafkaPublisher(createKafka({ brokers: brokers.split(','), sasl: testEnv().kafkaSasl, clientId: 'relay-child', logger }));
  await publisher.connect();
  const relay = new OutboxRelay({ db: client.db(dbName), collections: [collection], publisher, logger, name: 'test-relay', batchSize: 5, leaseMs: 2000 });
  relay.start();
  process.stdout.write('relay-started\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
