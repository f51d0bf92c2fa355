// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
      // IsOptional lets an explicit null through as if the field were absent: the platform's rule
      // is that null is refused unless the field is declared nullable (docs/contributing.md "Adding a route").
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message: 'Use OptionalField() (absent, not null) or NullableField() (absent or null) from @mm/errors.',
            },
          ],
        },
      ],
    },
  },
  { files: ['scripts/**/*.mjs', 'apps/console/scripts/*.mjs'], rules: { 'no-console': 'off' } },
  // The console runs in a browser (apps/console/tsconfig.json type-checks it); its API types are generated.
  { files: ['apps/console/src/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  { ignores: ['apps/console/src/api/schema.d.ts'] },
  // Tests read response bodies loosely; their assertions are the contract.
  { files: ['**/*.test.ts', '**/*.spec.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  prettier,
);
