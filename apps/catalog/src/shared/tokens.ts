export const CATALOG_CONFIG = Symbol('CATALOG_CONFIG');
