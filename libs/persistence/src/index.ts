export * from './mongo.module';
export * from './cassandra.module';
