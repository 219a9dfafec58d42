/**
 * A relay in its own process, so the test can kill it with SIGKILL mid-way.
 * argv: mongoUrl dbName collection brokers; SASL credentials from KAFKA_SASL_MECHANISM / KAFKA_USERNAME / KAFKA_PASSWORD (the test's).
 * RELAY_PROGRESS=stream runs it in 'stream' mode (ADR 0015 §2); RELAY_KILL_AT=before-commit|before-store
 * (with RELAY_KILL_PASS=n, default 1) makes it SIGKILL itself in its n-th publishing pass: with the
 * records sent and the Kafka commit not made, or with the commit made and the progress not stored.
 */
import { createMongoClient } from '@mw/persistence';
import { testEnv } from '@mw/testing';
import pino from 'pino';
import { createKafka } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import type { TransactionalSender, TransactionalSenderOptions } from '../publisher/transactional-sender';
import { OutboxRelay } from '../outbox/outbox-relay';

const killAt = process.env['RELAY_KILL_AT'];
const killPass = Number(process.env['RELAY_KILL_PASS'] ?? '1');
let commits = 0;
let stores = 0;
const die = (): void => {
  process.stdout.write(`relay-dying ${killAt}\n`);
  process.kill(process.pid, 'SIGKILL');
};

/** The real publisher; its transactions reach the broker, the process dies before the n-th commit if asked. */
class DyingPublisher extends KafkaPublisher {
  override transactional(id: string, opts: TransactionalSenderOptions = {}): TransactionalSender {
    if (killAt !== 'before-commit') return super.transactional(id, opts);
    return super.transactional(id, {
      ...opts,
      beforeCommit: async () => {
        if (++commits === killPass) die();
      },
    });
  }
}

async function main(): Promise<void> {
  const [mongoUrl, dbName, collection, brokers] = process.argv.slice(2) as [string, string, string, string];
  const logger = pino({ level: 'warn' });
  const client = await createMongoClient(mongoUrl).connect();
  const publisher = new DyingPublisher(createKafka({ brokers: brokers.split(','), sasl: testEnv().kafkaSasl, clientId: 'relay-child', logger }));
  await publisher.connect();
  const relay = new OutboxRelay({
    db: client.db(dbName),
    collections: [collection],
    publisher,
    logger,
    name: 'test-relay',
    batchSize: 5,
    leaseMs: 2000,
    progress: process.env['RELAY_PROGRESS'] === 'stream' ? 'stream' : 'pull',
    beforeProgressStore: () => {
      if (killAt === 'before-store' && ++stores === killPass) die();
    },
  });
  relay.start();
  process.stdout.write('relay-started\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
