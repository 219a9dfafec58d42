/**
 * Moves the messages one consumer group dead-lettered back to their topic, for that group only:
 *   npm run dlq:redrive -- inventory.commands.v1 --group inventory [--max 100]
 * The group is the `x-dlq-consumer-group` header of the DLQ records (the service's KAFKA_GROUP_ID).
 * Brokers from KAFKA_BROKERS (default 127.0.0.1:19092, the local infra), as the `ops` principal
 * (ADR 0009): KAFKA_REDRIVE_USERNAME / KAFKA_REDRIVE_PASSWORD, by default `ops` with the
 * KAFKA_PASSWORD_OPS of `infra:env`; KAFKA_SASL_MECHANISM (default scram-sha-512).
 */
import pino from 'pino';
import { baseConfigSchema, kafkaSaslOf, loadConfig } from '@mw/platform';
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
  const e = process.env;
  const brokers = (e['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
  const credentials = loadConfig(
    baseConfigSchema.pick({ KAFKA_SASL_MECHANISM: true, KAFKA_USERNAME: true, KAFKA_PASSWORD: true }),
    {
      KAFKA_SASL_MECHANISM: e['KAFKA_SASL_MECHANISM'],
      KAFKA_USERNAME: e['KAFKA_REDRIVE_USERNAME'] ?? 'ops',
      KAFKA_PASSWORD: e['KAFKA_REDRIVE_PASSWORD'] ?? e['KAFKA_PASSWORD_OPS'],
    },
  );
  const sasl = kafkaSaslOf(credentials);
  const result = await redrive({
    kafka: createKafka({ brokers, sasl, clientId: 'redrive', logger }),
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
