export * from './mongo-client';
export * from './mongo.module';
export * from './mongo-server-metrics';
export * from './cassandra.module';
export * from './sharding/shard-keys';
