import { Kafka, KafkaMessage } from 'kafkajs';
import { uniqueName } from './test-env';

export interface Collected {
  readonly topic: string;
  readonly partition: number;
  readonly message: KafkaMessage;
}

/**
 * Reads a topic from the beginning with a throwaway consumer group and collects messages until
 * `until(collected)` is true or the timeout passes (then it fails with what it saw).
 */
export async function collectFrom(
  kafka: Kafka,
  topics: string[],
  until: (all: readonly Collected[]) => boolean,
  timeoutMs = 30_000,
): Promise<Collected[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('probe'), allowAutoTopicCreation: false });
  const all: Collected[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms with ${all.length} message(s) from ${topics.join(',')}`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ topic, partition, message }) => {
            all.push({ topic, partition, message });
            if (until(all)) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return all;
}

export function header(m: KafkaMessage, name: string): string | undefined {
  return m.headers?.[name]?.toString();
}
