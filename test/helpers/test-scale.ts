/**
 * How hard the tests that can be run at two sizes push. `npm test` runs them at their quick size, enough to
 * catch a regression on every change; `npm run stress` runs test/scale/ and these tests again with
 * ARTIFACT_INGEST_TEST_SCALE=full (test/scale/vitest.config.ts), at the size the figures in the docs come from.
 */
export const FULL_SCALE = process.env.ARTIFACT_INGEST_TEST_SCALE === 'full';

/** `quick` under `npm test`, `full` under the scale run. */
export function atScale<T>(quick: T, full: T): T {
  return FULL_SCALE ? full : quick;
}
