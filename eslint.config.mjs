// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries. A module reaches another only through its index.ts (`../other`), never a file
 * inside it (`../other/other.service`); the kernel imports no module. Patterns are written per
 * folder depth because they match the import text, which is relative to the importing file. The
 * one exception is another module's request schemas (`../other/other.x.schemas`), which import only
 * zod and other such files: a schema the console bundles may build on them, where the index would
 * bring the ORM.
 */
const deepImport = (prefix) => ({
  regex: `^${prefix.replaceAll('.', '\\.')}[^./][^/]*/(?![^/]+\\.schemas$).+`,
  message: "Import another module through its index.ts ('../<module>'), never a file inside it.",
});
const moduleBoundaries = (prefix) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [deepImport(prefix)] }],
});

export default defineConfig(
  {
    ignores: ['dist/', 'data/', 'coverage/', 'test-artifacts/', 'node_modules/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a parameter or binding that is deliberately unused.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Type-aware rules only where they pay: promises nobody awaits in the service are lost errors.
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  { files: ['src/modules/*/*.ts'], rules: moduleBoundaries('../') },
  { files: ['src/modules/*/*/*.ts'], rules: moduleBoundaries('../../') },
  {
    files: ['src/kernel/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)modules(/|$)',
              message: 'The kernel is shared by every module and knows none of them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests poke at loosely typed answers; an `any` there is a smell, not a leak.
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Loaded by Jest itself, untransformed: CommonJS.
    files: ['jest.config.js', 'test/helpers/environment.js', 'test/helpers/runtime.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The election-day screens run in the browser (the service worker in its own global scope).
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker } },
  },
  {
    // The console's components: hooks called unconditionally, effects that name what they read.
    files: ['web/console/**/*.tsx', 'web/console/**/*.ts'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['landing/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
    rules: {
      // The page script is kept small by hand: `a && b()` and `x(), y()` statements are its idiom.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  prettier,
);
