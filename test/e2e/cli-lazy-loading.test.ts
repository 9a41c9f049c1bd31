import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeModuleLoadHooks } from '../helpers/module-load-hooks.js';
import { CLI, runProgram } from '../helpers/run-cli.js';

/**
 * A command loads only what it uses: the dependencies used on one path (yaml, pino, node-tar, fast-glob,
 * micromark's parser and the OpenTelemetry API of the live spans) load on first use (D76). Each case runs the real CLI in a child process that reports every
 * package it loaded, through both loaders: ESM imports (a module hook) and CommonJS requires (Module._load).
 */
let dir: string;
let preload: string;

const LAZY = ['yaml', 'pino', 'tar', 'fast-glob', 'micromark', '@opentelemetry/api'] as const;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ai-lazy-'));
  preload = await writeModuleLoadHooks(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let invocations = 0;

// `log --help` is asked by its row and by both flag tests: one run answers all three (a CLI start is most of a second).
const loadedByInvocation = new Map<string, Promise<Set<string>>>();

/** The npm packages a CLI invocation loaded, by name, its worker threads' included (run once per args and cwd). */
function packagesLoaded(args: readonly string[], cwd = dir): Promise<Set<string>> {
  const key = JSON.stringify([cwd, ...args]);
  let loaded = loadedByInvocation.get(key);
  if (loaded === undefined) {
    loaded = runWithLoadLog(args, cwd);
    loadedByInvocation.set(key, loaded);
  }
  return loaded;
}

async function runWithLoadLog(args: readonly string[], cwd: string): Promise<Set<string>> {
  invocations += 1;
  const log = path.join(dir, `loaded-${String(invocations)}.log`);
  await runProgram(process.execPath, ['--import', preload, CLI, ...args], { cwd, env: { LOAD_LOG: log } });
  const loaded = await readFile(log, 'utf8').catch(() => '');
  const packages = new Set<string>();
  for (const match of loaded.matchAll(/^LOADED .*?node_modules\/((?:@[^/]+\/)?[^/]+)\//gm))
    if (match[1] !== undefined) packages.add(match[1]);
  return packages;
}

describe('CLI lazy loading', () => {
  it.each([['log'], ['checkout'], ['verify'], ['replay'], ['runs'], ['show'], ['reindex']])(
    '%s --help loads none of the one-path dependencies',
    async (command) => {
      const loaded = await packagesLoaded([command, '--help']);
      // zod is loaded by every command: the detector sees packages at all.
      expect(loaded.has('zod')).toBe(true);
      for (const name of LAZY)
        expect({ command, name, loaded: loaded.has(name) }).toEqual({ command, name, loaded: false });
    },
  );

  it.each([['--version'], ['--help']])('%s loads no package at all, zod included', async (flag) => {
    expect([...(await packagesLoaded([flag]))]).toEqual([]);
    // The same flag after a command loads that command (and so zod): the detector sees packages there.
    expect((await packagesLoaded(['log', flag === '--version' ? '--help' : flag])).has('zod')).toBe(true);
  });

  it('loads fast-glob only for a glob, yaml only with a config file, and micromark only with parser: micromark', async () => {
    const project = await mkdtemp(path.join(dir, 'project-'));
    await writeFile(path.join(project, 'a.md'), '```ts file=a.ts\nexport const a = 1;\n```\n');
    const glob = await packagesLoaded(['ingest', '*.md', '--dry-run'], project);
    expect(glob.has('fast-glob')).toBe(true);
    expect(glob.has('yaml')).toBe(false);
    expect(glob.has('micromark')).toBe(false);

    await writeFile(path.join(project, 'artifact-ingest.config.yaml'), 'ingest:\n  parser: micromark\n');
    const micromark = await packagesLoaded(['ingest', 'a.md', '--dry-run'], project);
    expect(micromark.has('yaml')).toBe(true);
    expect(micromark.has('fast-glob')).toBe(false);
    expect(micromark.has('micromark')).toBe(true);
    const result = await runProgram(process.execPath, [CLI, 'ingest', 'a.md', '--dry-run', '--json'], {
      cwd: project,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('workspace/a.ts');
  });
});
