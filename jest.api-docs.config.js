// `npm run api:docs`: (re)writes docs/api/<service>.openapi.json from each service's endpoint
// declarations — the same api.spec.ts that CI runs to fail on a stale document, without servers.
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  rootDir: __dirname,
  moduleNameMapper: require('ts-jest').pathsToModuleNameMapper(require('./tsconfig.base.json').compilerOptions.paths, {
    prefix: '<rootDir>/',
  }),
  testMatch: ['<rootDir>/apps/*/src/api.spec.ts'],
  reporters: ['default'],
};
