/** @type {import('jest').Config} */
module.exports = {
  // Jest's Node environment with a plain global object (see the file): tight loops 30-80 times faster.
  testEnvironment: '<rootDir>/test/helpers/environment.js',
  // Jest's runtime with V8's code cache for the modules every file compiles again (see the file).
  runtime: '<rootDir>/test/helpers/runtime.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // tsconfig has isolatedModules, so ts-jest only transpiles; `npm run typecheck` checks types.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // Tests spend much of their time waiting on timers, sockets and child processes: a third
  // worker on this project's two-core machine took the suite from 408 to 342-352 s.
  maxWorkers: 3,
  // Every test file's modules stay reachable after it ends (Node keeps vm contexts alive, a known
  // Jest issue this setting is the documented answer to): a worker's heap grew by 44 MB a file to
  // 1.5 GB. Recycled at 800 MB.
  workerIdleMemoryLimit: '800MB',
  // A worker that ran its last file exits on its own within milliseconds, but tearing down a heap of
  // several hundred MB takes the process 1.2-1.4 s more: past Jest's default 500 ms it is killed and
  // reported as a leak.
  workerGracefulExitTimeout: 3000,
  testTimeout: 30000,
};
