import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConsumerTypeChecks, expectConsumerWorks, useAi } from './ai-sdk-consumer.js';
import { packPackage } from './packed-package.js';
import type { PackedPackage } from './packed-package.js';

/**
 * `ai` 7 needs Node 22 or later, so it is no dependency of the package: `.ci/run` installs it under an npm prefix
 * of its own and names that prefix here, under Node 22 and 24.
 */
const AI7_PREFIX = process.env['ARTIFACT_INGEST_TEST_AI7_PREFIX'];

describe.skipIf(AI7_PREFIX === undefined)(
  'artifact-ingest/ai-sdk from the packed tarball, with ai 7 (skipped unless ARTIFACT_INGEST_TEST_AI7_PREFIX names an npm prefix holding ai@7, as .ci/run sets it under Node 22 and 24)',
  () => {
    let packed: PackedPackage;
    const aiDir = path.join(AI7_PREFIX ?? '', 'node_modules', 'ai');

    beforeAll(async () => {
      packed = await packPackage();
      await useAi(packed, aiDir);
    });

    afterAll(async () => {
      await packed.remove();
    });

    it('runs against ai 7', async () => {
      const manifest = JSON.parse(await readFile(path.join(aiDir, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(manifest.version).toMatch(/^7\./);
    });

    it("streams and generates with ai 7's own mock model: files written while streaming, the manifests as expected", async () => {
      await expectConsumerWorks(packed, 'MockLanguageModelV4', 7);
    });

    it('type-checks a TypeScript user of streamText, generateText and tools against ai 7 types', async () => {
      await expectConsumerTypeChecks(packed, aiDir);
    });
  },
);
