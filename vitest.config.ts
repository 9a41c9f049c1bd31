import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/scale/ runs in `npm run stress` (test/scale/vitest.config.ts), not here.
    exclude: ['test/bench/**', 'test/scale/**', 'node_modules/**'],
    // Guards against a hang, not limits on speed: with the other core busy a child process can take seconds to start.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Before each test file, in its worker: micromark loaded by import(), so no later require() of it races one.
    setupFiles: ['test/setup/load-micromark-first.ts'],
    // One PostgreSQL for the whole run (ARTIFACT_INGEST_TEST_POSTGRES_URL, or one it starts), for the remote's tests.
    globalSetup: ['test/setup/postgres.ts'],
    // A worker keeps the modules it loaded from one test file to the next (D98): loading src/ again for each of
    // ~300 files was a third of the suite's CPU. No test mocks modules or leaves global state behind.
    isolate: false,
    // One test file per core: the default leaves a core of this 2-core machine idle (half the wall time).
    maxWorkers: Math.max(1, availableParallelism()),
  },
});
