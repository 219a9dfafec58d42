import type { Provider } from '@nestjs/common';
import type { Logger } from 'pino';
import { createKafka } from '@mw/messaging';
import { kafkaSaslOf, LOGGER } from '@mw/platform';
import type { OrdersConfig } from '../config';
import { OrdersRepository } from '../orders/orders.repository';
import { overdueGraceMs } from '../saga/saga.metrics';
import { KafkaOperations } from './kafka-operations';
import { KafkaOperationsService } from './kafka-operations.service';
import { StuckOrders } from './operations.service';

/**
 * The ops principal's Kafka client (ADR 0009), or none when this instance has no ops password under
 * SASL: the operator's Kafka endpoints then answer 503.
 */
export function opsKafka(config: Readonly<OrdersConfig>, logger: Logger): KafkaOperations | undefined {
  const open = config.KAFKA_SASL_MECHANISM === 'none';
  if (!open && config.OPS_KAFKA_PASSWORD === undefined) return undefined;
  const sasl = kafkaSaslOf({
    KAFKA_SASL_MECHANISM: config.KAFKA_SASL_MECHANISM,
    KAFKA_USERNAME: config.OPS_KAFKA_USERNAME,
    KAFKA_PASSWORD: config.OPS_KAFKA_PASSWORD,
  });
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, sasl, clientId: 'orders-ops', logger });
  return new KafkaOperations(kafka, config.OPS_DLQ_TOPICS, config.OPS_PROJECTOR_GROUP, logger);
}

/** The operator's endpoints of orders: stuck sagas (MongoDB), lag and dead letters (Kafka as ops). */
export function operationsProviders(config: Readonly<OrdersConfig>): Provider[] {
  return [
    {
      provide: StuckOrders,
      useFactory: (r: OrdersRepository) => new StuckOrders(r, overdueGraceMs(config.SAGA_SWEEP_INTERVAL_MS)),
      inject: [OrdersRepository],
    },
    {
      provide: KafkaOperationsService,
      useFactory: (log: Logger) => new KafkaOperationsService(opsKafka(config, log), config.OPS_DLQ_TOPICS),
      inject: [LOGGER],
    },
  ];
}
