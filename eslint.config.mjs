import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * Workspace lint rules. Module boundaries are enforced with real tags:
 * an app or lib may depend on its own scope and on scope:shared only, and on
 * lower layers only (app → feature → data-access → contracts/util).
 */
export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/.infra', '**/.nx', '**/coverage', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message:
            'Read configuration through the validated config object (libs/platform loadConfig), not process.env.',
        },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:catalog', onlyDependOnLibsWithTags: ['scope:catalog', 'scope:shared'] },
            { sourceTag: 'scope:inventory', onlyDependOnLibsWithTags: ['scope:inventory', 'scope:shared'] },
            { sourceTag: 'scope:carts', onlyDependOnLibsWithTags: ['scope:carts', 'scope:shared'] },
            { sourceTag: 'scope:orders', onlyDependOnLibsWithTags: ['scope:orders', 'scope:shared'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:tools', 'scope:shared'] },
            // The web app talks to the services only over HTTP, through a client generated from docs/api.
            { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:web', 'scope:shared'] },
            // End-to-end tests drive the services as processes over HTTP and Kafka: shared libs only, never an app's code;
            // the chaos run also starts and kills its own servers through the infra tooling.
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared', 'scope:tools'] },
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:contracts', 'type:util'],
            },
            {
              sourceTag: 'type:feature',
              onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:contracts', 'type:util'],
            },
            {
              sourceTag: 'type:data-access',
              onlyDependOnLibsWithTags: ['type:data-access', 'type:contracts', 'type:util'],
            },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            {
              sourceTag: 'type:e2e',
              onlyDependOnLibsWithTags: ['type:util', 'type:contracts', 'type:data-access', 'type:tool'],
            },
            {
              sourceTag: 'type:tool',
              onlyDependOnLibsWithTags: ['type:util', 'type:contracts', 'type:data-access', 'type:tool'],
            },
          ],
        },
      ],
    },
  },
  {
    // Tests, tools, scripts and the config loader itself may read the environment directly.
    files: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/test/**/*.ts',
      'tools/**/*.ts',
      '**/scripts/**/*.ts',
      '**/bench/**/*.ts',
      '**/chaos/**/*.ts',
      'libs/platform/src/config/*.ts',
      'libs/testing/src/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The web app (React): the rules of hooks.
    files: ['apps/web/src/**/*.tsx', 'apps/web/src/**/*.ts'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  prettier,
];
