import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeModuleLoadHooks } from '../helpers/module-load-hooks.js';
import { expectConsumerTypeChecks, expectConsumerWorks } from './ai-sdk-consumer.js';
import { packPackage, REPO, runProgram } from './packed-package.js';
import type { PackedPackage } from './packed-package.js';

let packed: PackedPackage;
let hooks: string;

beforeAll(async () => {
  packed = await packPackage();
  hooks = await mkdtemp(path.join(tmpdir(), 'ai-sdk-hooks-'));
});

afterAll(async () => {
  await packed.remove();
  await rm(hooks, { recursive: true, force: true });
});

/** The npm packages a script loads in the packed project, through ESM imports and CommonJS requires alike. */
async function packagesLoadedBy(name: string, source: string): Promise<Set<string>> {
  const preload = await writeModuleLoadHooks(hooks);
  const log = path.join(hooks, `${name}.log`);
  await writeFile(path.join(packed.project, name), source);
  const result = await runProgram(process.execPath, ['--import', preload, name], {
    cwd: packed.project,
    env: { LOAD_LOG: log },
  });
  expect(result.code).toBe(0);
  const loaded = await readFile(log, 'utf8');
  return new Set(
    [...loaded.matchAll(/^LOADED .*?node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]!),
  );
}

describe('artifact-ingest/ai-sdk from the packed tarball, with ai 6 (the devDependency)', () => {
  it('streams and generates with the SDK mock model: files written while streaming, the manifests as expected', async () => {
    await expectConsumerWorks(packed, 'MockLanguageModelV3', 6);
  });

  it('type-checks a TypeScript user of streamText, generateText and tools against the published types', async () => {
    await expectConsumerTypeChecks(packed, path.join(REPO, 'node_modules', 'ai'));
  });

  it('loads no ai code: neither the main entry nor the adapter imports ai at run time', async () => {
    const loaded = await packagesLoadedBy(
      'load-both.mjs',
      "await import('artifact-ingest');\nawait import('artifact-ingest/ai-sdk');\n",
    );
    // The detector sees packages: the adapter's own dependencies are loaded.
    expect(loaded.has('artifact-ingest')).toBe(true);
    expect(loaded.has('zod')).toBe(true);
    expect([...loaded].filter((name) => name === 'ai' || name.startsWith('@ai-sdk/'))).toEqual([]);
    // And it would see ai: a script that imports it shows it.
    expect((await packagesLoadedBy('load-ai.mjs', "await import('ai');\n")).has('ai')).toBe(true);
  });

  it('is reached by require() too (require(esm), Node 20.19+)', async () => {
    await writeFile(
      path.join(packed.project, 'require-ai-sdk.cjs'),
      "const api = require('artifact-ingest/ai-sdk');\nprocess.stdout.write(JSON.stringify(Object.keys(api).sort()));\n",
    );
    const result = await runProgram(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', 'require-ai-sdk.cjs'],
      { cwd: packed.project },
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(['ingestOnFinish', 'ingestTransform']);
  });
});
