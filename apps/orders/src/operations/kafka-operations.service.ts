import { AppError } from '@mw/platform';
import type { RedriveResult } from '@mw/messaging';
import type { ConsumerLagReport, DeadLetterTopic, KafkaOperations } from './kafka-operations';

/**
 * The operator's Kafka endpoints: refuses a topic it does not know, and turns a missing ops
 * principal or a broker that does not answer into 503 (the rest of orders keeps working).
 */
export class KafkaOperationsService {
  constructor(
    private readonly ops: KafkaOperations | undefined,
    private readonly topics: readonly string[],
  ) {}

  consumerLag(): Promise<ConsumerLagReport> {
    return this.call((o) => o.consumerLag());
  }

  async deadLetters(): Promise<{ topics: DeadLetterTopic[] }> {
    return { topics: await this.call((o) => o.deadLetters()) };
  }

  redrive(topic: string, group: string): Promise<RedriveResult> {
    if (!this.topics.includes(topic))
      throw AppError.unprocessable(
        [
          {
            field: 'params.topic',
            message: `not a topic whose dead letters this service shows: ${this.topics.join(', ')}`,
          },
        ],
        'ORDERS.UNKNOWN_TOPIC',
      );
    return this.call((o) => o.redrive(topic, group));
  }

  private async call<T>(f: (o: KafkaOperations) => Promise<T>): Promise<T> {
    if (!this.ops)
      throw new AppError(
        'ORDERS.OPS_KAFKA_UNAVAILABLE',
        'unavailable',
        'no ops credentials (OPS_KAFKA_PASSWORD) on this instance',
      );
    try {
      return await f(this.ops);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError(
        'ORDERS.OPS_KAFKA_UNAVAILABLE',
        'unavailable',
        `Kafka did not answer the operator: ${(e as Error).message}`,
      );
    }
  }
}
