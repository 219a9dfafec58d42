export * from './commands';
export * from './events';
