export * from './kafka/kafka';
export * from './publisher/publisher';
export * from './consumer/consumer-runner';
export * from './consumer/nest-kafka';
export * from './outbox/outbox';
export * from './outbox/outbox-relay';
export * from './dlq/redrive';
export * from './messaging.module';
