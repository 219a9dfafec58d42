export * from './checkout';
export * from './order-id';
