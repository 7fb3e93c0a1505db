/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // tsconfig has isolatedModules, so ts-jest only transpiles; `npm run typecheck` checks types.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  maxWorkers: 2,
  testTimeout: 30000,
};
