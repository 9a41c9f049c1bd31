import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The scale run (`npm run stress` runs it after the stress table): the tests too slow for `npm test`, kept in
 * test/scale/, and the two-size tests of test/helpers/test-scale.ts at their full size.
 */
export const SCALED_TESTS = [
  'test/fence/differential-corpus.test.ts',
  'test/artifacts/lineage/checkout-records.test.ts',
  'test/workflow/state/transact-workflow-state-processes.test.ts',
  'test/e2e/cli-workflow-kill.test.ts',
  'test/mcp/mcp-stdio.test.ts',
  'test/mcp/bounded-stdio-transport.test.ts',
  'test/workspace/confined-root.property.test.ts',
  'test/artifacts/record/record-artifacts-processes.test.ts',
];

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/scale/**/*.test.ts', ...SCALED_TESTS],
    env: { ARTIFACT_INGEST_TEST_SCALE: 'full' },
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: 'forks',
    setupFiles: ['test/setup/load-micromark-first.ts'],
    globalSetup: ['test/setup/postgres.ts'],
    maxWorkers: Math.max(1, availableParallelism()),
  },
});
