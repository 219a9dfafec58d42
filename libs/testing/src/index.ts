export * from './test-env';
export * from './kafka-probe';
export * from './start-service';
export * from './member-reads';
export * from './seeded-random';
export * from './oidc';
export * from './api-document';
export * from './keycloak-users';
