module.exports = {
  displayName: 'persistence',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  globalSetup: '<rootDir>/../../tools/infra/src/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../../libs/testing/src/jest-global-teardown.ts',
  testTimeout: 60_000,
};
