module.exports = {
  displayName: 'testing',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  globalSetup: '<rootDir>/src/jest-global-setup.ts',
  testTimeout: 60_000,
};
