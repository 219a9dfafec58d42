// keycloak.int-spec.ts starts Keycloak itself through ensureInfra (beforeAll has its own timeout).
module.exports = { displayName: 'infra', preset: '../../jest.preset.js', rootDir: __dirname, testTimeout: 30_000 };
