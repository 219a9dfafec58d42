// stack.int-spec.ts runs the real npm start / npm stop (own Kafka beside the shared databases): long timeouts.
module.exports = {
  displayName: 'stack',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  globalSetup: '<rootDir>/../../tools/infra/src/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../../libs/testing/src/jest-global-teardown.ts',
  testTimeout: 120_000,
};
