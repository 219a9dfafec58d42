module.exports = {
  displayName: 'e2e',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  globalSetup: '<rootDir>/../../tools/infra/src/jest-global-setup.ts',
  testTimeout: 120_000,
};
