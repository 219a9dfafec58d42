// The cluster topology's own suite (tools/infra/src/cluster/*.cluster-spec.ts): needs root and
// ~4 GiB, starts nine servers in network namespaces — never part of `npm test`. Run it with
// `npm run cluster:test` (README "Cluster topology").
const base = require('./jest.config.js');

module.exports = {
  ...base,
  displayName: 'infra-cluster',
  testMatch: ['<rootDir>/src/**/*.cluster-spec.ts'],
  testTimeout: 600_000,
};
