/**
 * Moves the messages one consumer group dead-lettered back to their topic, for that group only:
 *   npm run dlq:redrive -- inventory.commands.v1 --group inventory [--max 100]
 * The group is the `x-dlq-consumer-group` header of the DLQ records (the service's KAFKA_GROUP_ID).
 * Brokers from KAFKA_BROKERS (default 127.0.0.1:19092, the local infra).
 */
import pino from 'pino';
import { isTopicName, topicNames } from '@mw/contracts';
import { createKafka } from '../src/kafka/kafka';
import { redrive } from '../src/dlq/redrive';

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const [topic, ...rest] = process.argv.slice(2);
  const group = option(rest, '--group');
  if (!topic || !isTopicName(topic) || !group || group.startsWith('--')) {
    console.error(
      `usage: npm run dlq:redrive -- <topic> --group <consumer-group> [--max N]\ntopics: ${topicNames.join(', ')}`,
    );
    process.exit(2);
  }
  const maxText = option(rest, '--max');
  const max = maxText !== undefined ? Number(maxText) : undefined;
  if (max !== undefined && (!Number.isInteger(max) || max <= 0)) {
    console.error('--max must be a positive integer');
    process.exit(2);
  }
  const logger = pino({ level: 'info' });
  const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
  const result = await redrive({
    kafka: createKafka({ brokers, clientId: 'redrive', logger }),
    topic,
    group,
    logger,
    max,
  });
  console.log(
    `moved ${result.moved} message(s) of group ${group} from ${result.dlq} back to ${topic} (passed over ${result.passed} of other groups)`,
  );
}

main().catch((e: unknown) => {
  console.error(`redrive failed: ${(e as Error).message}`);
  process.exit(1);
});
