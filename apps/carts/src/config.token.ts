export const CARTS_CONFIG = Symbol('CARTS_CONFIG');
