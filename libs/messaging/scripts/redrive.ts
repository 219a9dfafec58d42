/**
 * Moves dead-lettered messages back to their topic:
 *   npm run dlq:redrive -- inventory.commands.v1 [--max 100]
 * Brokers from KAFKA_BROKERS (default 127.0.0.1:19092, the local infra).
 */
import pino from 'pino';
import { isTopicName, topicNames } from '@mw/contracts';
import { createKafka } from '../src/kafka/kafka';
import { redrive } from '../src/dlq/redrive';

async function main(): Promise<void> {
  const [topic, ...rest] = process.argv.slice(2);
  if (!topic || !isTopicName(topic)) {
    console.error(`usage: npm run dlq:redrive -- <topic> [--max N]\ntopics: ${topicNames.join(', ')}`);
    process.exit(2);
  }
  const maxIdx = rest.indexOf('--max');
  const max = maxIdx >= 0 ? Number(rest[maxIdx + 1]) : undefined;
  if (max !== undefined && (!Number.isInteger(max) || max <= 0)) {
    console.error('--max must be a positive integer');
    process.exit(2);
  }
  const logger = pino({ level: 'info' });
  const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
  const result = await redrive({ kafka: createKafka({ brokers, clientId: 'redrive', logger }), topic, logger, max });
  console.log(`moved ${result.moved} message(s) from ${result.dlq} back to ${topic}`);
}

main().catch((e: unknown) => {
  console.error(`redrive failed: ${(e as Error).message}`);
  process.exit(1);
});
