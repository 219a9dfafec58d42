module.exports = {
  displayName: 'orders',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  globalSetup: '<rootDir>/../../libs/testing/src/jest-global-setup.ts',
  testTimeout: 120_000,
};
