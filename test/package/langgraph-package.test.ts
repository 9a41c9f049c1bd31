import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeModuleLoadHooks } from '../helpers/module-load-hooks.js';
import { packPackage, REPO, runProgram, type PackedPackage } from './packed-package.js';

let packed: PackedPackage;

beforeAll(async () => {
  packed = await packPackage();
});

afterAll(async () => {
  await packed.remove();
});

const ANSWER =
  'Here it is.\n\n```ts file=src/hello.ts\nexport const hello = (name: string) => `Hello, ${name}!`;\n```\n';

/** The content of the first block fenced by `fence` + `lang` after `marker` in docs/integrations.md. */
async function docsBlock(marker: string, opening: string): Promise<string> {
  const page = await readFile(path.join(REPO, 'docs/integrations.md'), 'utf8');
  const from = page.indexOf(marker);
  expect(from, `docs/integrations.md should contain ${marker}`).toBeGreaterThanOrEqual(0);
  const start = page.indexOf(`\n${opening}\n`, from) + opening.length + 2;
  expect(start, `a ${opening} block after ${marker}`).toBeGreaterThan(from + opening.length + 1);
  const fence = /^`+/.exec(opening)![0];
  return page.slice(start, page.indexOf(`\n${fence}\n`, start - 1) + 1);
}

describe('artifact-ingest/langgraph from the packed tarball', () => {
  it('ships the subpath and exports it with its types', async () => {
    expect(packed.files).toEqual(
      expect.arrayContaining(['dist/langgraph/index.js', 'dist/langgraph/index.d.ts']),
    );
    const manifest = JSON.parse(await readFile(path.join(packed.packageDir, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      peerDependenciesMeta: Record<string, unknown>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    expect(manifest.exports['./langgraph']).toEqual({
      types: './dist/langgraph/index.d.ts',
      import: './dist/langgraph/index.js',
      default: './dist/langgraph/index.js',
    });
    // For TypeScript's node10 resolution, which reads no `exports`.
    expect(manifest.typesVersions['*']?.['langgraph']).toEqual(['./dist/langgraph/index.d.ts']);
    expect(manifest.peerDependenciesMeta).toMatchObject({
      '@langchain/langgraph': { optional: true },
      '@langchain/core': { optional: true },
    });
  });

  it('runs the snippet of docs/integrations.md, with a fake model for ChatOpenAI, and prints what the page shows', async () => {
    const snippet = await docsBlock('## LangGraph.js', '````ts');
    const real = "import { ChatOpenAI } from '@langchain/openai';\n";
    const made = /new ChatOpenAI\(\{[^)]*\}\)/.exec(snippet)?.[0];
    expect(snippet).toContain(real);
    expect(made).toBeDefined();
    const runnable = snippet
      .replace(real, "import { FakeListChatModel } from '@langchain/core/utils/testing';\n")
      .replace(made!, `new FakeListChatModel({ responses: [${JSON.stringify(ANSWER)}] })`)
      .concat("console.log(import.meta.resolve('artifact-ingest/langgraph'));\n");
    await writeFile(path.join(packed.project, 'graph.mjs'), runnable);

    const result = await runProgram(process.execPath, ['graph.mjs'], { cwd: packed.project });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = await docsBlock('and the state holds:', '```js');
    const adapter = pathToFileURL(path.join(packed.packageDir, 'dist', 'langgraph', 'index.js')).href;
    expect(result.stdout).toBe(`${printed}${adapter}\n`);
    const read = (file: string): Promise<string> => readFile(path.join(packed.project, file), 'utf8');
    expect(await read('workspace/src/hello.ts')).toBe(
      'export const hello = (name: string) => `Hello, ${name}!`;\n',
    );
    expect(await read('docs/chat-1/save_files.md')).toBe(ANSWER);
  });

  it('exports the node, its error, the annotation and the summary schema', async () => {
    await writeFile(
      path.join(packed.project, 'exports.mjs'),
      "import * as adapter from 'artifact-ingest/langgraph';\nconsole.log(JSON.stringify(Object.keys(adapter).sort()));\n",
    );
    const result = await runProgram(process.execPath, ['exports.mjs'], { cwd: packed.project });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      'IngestAnnotation',
      'IngestNodeError',
      'ingestNode',
      'ingestNodeSummarySchema',
    ]);
  });

  it('keeps @langchain/* out of the main entry: importing artifact-ingest loads none of it', async () => {
    const hooksDir = await mkdtemp(path.join(tmpdir(), 'ai-hooks-'));
    let runs = 0;
    const loadedBy = async (entry: string): Promise<string[]> => {
      const register = await writeModuleLoadHooks(hooksDir);
      // Through a file, not stderr: the hooks run off the main thread (Node 22+), and their stderr can be cut off.
      const log = path.join(hooksDir, `loaded-${String(runs++)}.log`);
      await writeFile(path.join(packed.project, 'load.mjs'), `await import(${JSON.stringify(entry)});\n`);
      const result = await runProgram(process.execPath, ['--import', register, 'load.mjs'], {
        cwd: packed.project,
        env: { LOAD_LOG: log },
      });
      expect(result.code).toBe(0);
      return (await readFile(log, 'utf8')).split('\n').filter((line) => line.startsWith('LOADED '));
    };
    const langchain = (lines: readonly string[]): string[] =>
      lines.filter((line) => /\/node_modules\/@langchain\/|\/dist\/langgraph\//.test(line));
    try {
      const main = await loadedBy('artifact-ingest');
      expect(main).toContain(`LOADED file://${path.join(packed.packageDir, 'dist', 'index.js')}`);
      expect(langchain(main)).toEqual([]);
      // The same check sees them when the subpath is imported: it can fail.
      expect(langchain(await loadedBy('artifact-ingest/langgraph'))).toEqual(
        expect.arrayContaining([expect.stringContaining('/node_modules/@langchain/langgraph/')]),
      );
    } finally {
      await rm(hooksDir, { recursive: true, force: true });
    }
  });
});
