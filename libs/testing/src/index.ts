export * from './test-env';
export * from './kafka-probe';
