// Shared Jest preset: SWC transform (fast, keeps decorator metadata for NestJS DI),
// node environment, path aliases from tsconfig.base.json.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

module.exports = {
  testEnvironment: 'node',
  // kafkajs and driver sockets can outlive a suite by a few seconds; never let a run hang on them.
  forceExit: true,
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/../../' }),
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/src/**/*.int-spec.ts', '<rootDir>/test/**/*.spec.ts'],
  coverageReporters: ['text-summary', 'lcov'],
  reporters: ['default', require.resolve('./tools/stack/src/jest-summary-reporter.js')],
};
