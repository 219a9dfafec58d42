/**
 * A BatchConsumer with a commit interval in its own process (ADR 0015 §14), so a test can SIGKILL it
 * while a chunk is being handled and the interval's commit has run for the chunks before it.
 * Handles one record per chunk; at the record `stop-at` it prints `PAUSED handling <value>` and
 * never returns. Prints `HANDLED <value>` after each record it handled.
 * argv: topic groupId stop-at commitIntervalMs; brokers and SASL from the test's environment.
 */
import pino from 'pino';
import { HealthRegistry } from '@mw/platform';
import { pauseForKill, testEnv } from '@mw/testing';
import { createKafka } from '../kafka/kafka';
import { BatchConsumer } from '../consumer/batch-consumer';
import { oneTopicOptions } from './one-topic-options';

async function main(): Promise<void> {
  const [topic, groupId, stopAt, interval] = process.argv.slice(2) as [string, string, string, string];
  const env = testEnv();
  const logger = pino({ level: 'warn' });
  const kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'commit-child', logger });
  const consumer = new BatchConsumer(
    kafka,
    { ...oneTopicOptions('commit-child', groupId, topic, 1), commitIntervalMs: Number(interval) },
    async (records) => {
      for (const r of records) {
        const value = String(r.value);
        if (value === stopAt) await pauseForKill(`handling ${value}`);
        process.stdout.write(`HANDLED ${value}\n`);
      }
    },
    new HealthRegistry(),
    logger,
  );
  await consumer.start();
}

void main();
