export * from './products';
export * from './categories';
