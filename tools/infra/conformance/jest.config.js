// Standalone jest config for the MongoDB conformance suite (needs MONGO_URL; see README.md).
const preset = require('../../../jest.preset.js');

module.exports = {
  ...preset,
  displayName: 'mongo-conformance',
  rootDir: __dirname,
  testMatch: ['<rootDir>/mongo-conformance.spec.ts'],
  moduleNameMapper: {},
  globalSetup: '<rootDir>/../src/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../../../libs/testing/src/jest-global-teardown.ts',
  testTimeout: 120000,
};
