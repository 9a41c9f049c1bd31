import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFences } from '../../../src/fence/index.js';
import { IsolatedFenceParser, parseFencesIsolated } from '../../../src/ingest/index.js';
import { hostileNestedLists } from '../../helpers/hostile-markdown.js';

const fixturesDir = fileURLToPath(new URL('../../../fixtures/fence/', import.meta.url));
const fixtureNames = (await readdir(fixturesDir)).sort();
const readFixture = (name: string): Promise<string> => readFile(`${fixturesDir}${name}/input.md`, 'utf8');
// Hang guard only: a hostile parse that is not stopped runs for tens of seconds.
const GUARD = 20_000;

const parsers: IsolatedFenceParser[] = [];
const newParser = (...args: ConstructorParameters<typeof IsolatedFenceParser>): IsolatedFenceParser => {
  const parser = new IsolatedFenceParser(...args);
  parsers.push(parser);
  return parser;
};
afterAll(async () => {
  await Promise.all(parsers.map((parser) => parser.close()));
});
// Starting a worker on a .ts entry loads tsx (about a second of CPU): tests that need a working worker share one
// parser per heap limit, each leaving it with a live worker and counting the workers it starts itself.
let steady: IsolatedFenceParser | undefined;
const steadyParser = (): IsolatedFenceParser => (steady ??= newParser());
let capped: IsolatedFenceParser | undefined;
const cappedParser = (): IsolatedFenceParser => (capped ??= newParser({ maxHeapMb: 48 }));

describe('parseFencesIsolated', () => {
  it.each(fixtureNames)(
    'gives exactly the blocks of the in-process parse for fixtures/fence/%s',
    async (name) => {
      const text = await readFixture(name);
      expect(await parseFencesIsolated(text)).toEqual(parseFences(text));
      expect(await parseFencesIsolated(text, { all: true, timeLimitMs: 10_000 })).toEqual(
        parseFences(text, { all: true }),
      );
    },
  );

  it.each([
    ['CRLF line endings', '```ts file=a.ts\r\nx\r\n```\r\n'],
    ['a lone surrogate in content', '```ts file=a.ts\n\ud800 x\n```\n'],
    ['a character reference in the info string', '```ts file&#61;a.ts\nx\n```\n'],
    ['a block left open', '```ts file=a.ts\nx\n'],
    ['a format error', '```file=a.ts\nx\n```\n'],
  ])('keeps every field through structured clone: %s', async (_name, text) => {
    expect(await parseFencesIsolated(text)).toEqual(parseFences(text));
  });

  it('answers a text that cannot hold a candidate without parsing, as parseFences does', async () => {
    expect(await parseFencesIsolated('no fence here\n'.repeat(1000))).toEqual({ blocks: [], parsed: false });
  });

  // Before the micromark parse below terminates the shared worker, so this one needs no fresh worker.
  it('parses the 16 KB hostile document with the scanner, the default parser, within max_parse_ms 500', async () => {
    const text = hostileNestedLists();
    const scan = await parseFencesIsolated(text, { timeLimitMs: 500 });
    expect(scan).toEqual(parseFences(text, { parser: 'scanner' }));
    expect(scan.blocks.map((block) => block.declaredFile)).toEqual(['a.ts']);
  });

  it(
    'stops the same document with micromark at max_parse_ms 500 and reports it timed out',
    async () => {
      expect(
        await parseFencesIsolated(hostileNestedLists(), { timeLimitMs: 500, parser: 'micromark' }),
      ).toEqual({
        blocks: [],
        parsed: true,
        timedOut: true,
      });
    },
    GUARD,
  );
});

describe('IsolatedFenceParser', () => {
  it('reuses one worker for every document', async () => {
    // The first test of the describe, so the shared worker starts here.
    const parser = steadyParser();
    const text = await readFixture('typical-agent-doc');
    for (let round = 0; round < 5; round++) expect(await parser.parse(text)).toEqual(parseFences(text));
    expect(parser.workersStarted).toBe(1);
  });

  it('answers documents sent together, each with its own blocks, in order', async () => {
    const parser = steadyParser();
    const texts = await Promise.all(fixtureNames.map(readFixture));
    const scans = await Promise.all(texts.map((text) => parser.parse(text, { timeLimitMs: 10_000 })));
    expect(scans).toEqual(texts.map((text) => parseFences(text)));
  });

  it(
    'replaces a terminated worker: two hostile documents, then a normal one, all answer',
    async () => {
      const parser = steadyParser();
      const normal = await readFixture('typical-agent-doc');
      expect(await parser.parse(normal)).toEqual(parseFences(normal));
      const before = parser.workersStarted;
      // micromark takes tens of seconds on these, so however slow the machine they time out: 50 ms cannot fail falsely.
      const [first, second, third] = await Promise.all([
        parser.parse(hostileNestedLists(), { timeLimitMs: 50, parser: 'micromark' }),
        parser.parse(hostileNestedLists(), { timeLimitMs: 50, parser: 'micromark' }),
        parser.parse(normal, { timeLimitMs: 10_000 }),
      ]);
      expect(first.timedOut).toBe(true);
      expect(second.timedOut).toBe(true);
      expect(third).toEqual(parseFences(normal));
      // The live worker took the first hostile document; one fresh worker after each of the two terminated.
      expect(parser.workersStarted).toBe(before + 2);
      expect(parser.fallback).toBeUndefined();
    },
    GUARD,
  );

  it(
    'loses only the document that exhausts the worker heap, never the process; the next one gets a new worker',
    async () => {
      const parser = cappedParser();
      const huge = '```ts file=a.ts\nx\n```\n\n'.repeat(400_000);
      const normal = await readFixture('typical-agent-doc');
      await expect(parser.parse(huge)).rejects.toThrow(
        /fence parse worker failed: .*memory.* while parsing/i,
      );
      expect(await parser.parse(normal)).toEqual(parseFences(normal));
      expect(parser.workersStarted).toBe(2);
      expect(parser.fallback).toBeUndefined();
    },
    GUARD * 3,
  );

  it(
    'parses that document in the same heap when asked to keep 500 candidates, counting the rest',
    async () => {
      const parser = cappedParser();
      const huge = '```ts file=a.ts\nx\n```\n\n'.repeat(400_000);
      const before = parser.workersStarted;
      const scan = await parser.parse(huge, { maxCandidates: 500 });
      expect(scan.blocks).toEqual(parseFences(huge.slice(0, 500 * 23)).blocks);
      expect(scan.omitted).toEqual({ count: 399_500, byKind: { valid: 399_500 } });
      // One worker parsed it and lives on: the one the test above left, or the first of a parser run alone.
      expect(parser.workersStarted).toBe(Math.max(before, 1));
    },
    GUARD * 3,
  );

  it('falls back to the in-process parse when the worker cannot start, and says so once', async () => {
    const warnings: string[] = [];
    const parser = newParser({
      workerEntry: pathToFileURL(`${fixturesDir}no-such-worker.js`),
      warn: (message) => warnings.push(message),
    });
    const text = await readFixture('typical-agent-doc');
    expect(await parser.parse(text)).toEqual(parseFences(text));
    expect(await parser.parse(text, { all: true })).toEqual(parseFences(text, { all: true }));
    // The in-process guard still applies: checked between parse steps.
    expect(await parser.parse('```ts file=a.ts\nx\n```\n'.repeat(2000), { timeLimitMs: 1e-9 })).toEqual({
      blocks: [],
      parsed: true,
      timedOut: true,
    });
    expect(warnings).toEqual([
      expect.stringMatching(/^cannot start the fence parse worker .*no-such-worker/),
    ]);
    expect(parser.fallback).toMatch(/no-such-worker/);
    expect(parser.workersStarted).toBe(0);
  });

  it('gives up at once, starting nothing, for a time limit of zero', async () => {
    const parser = newParser();
    expect(await parser.parse('```ts file=a.ts\nx\n```\n', { timeLimitMs: 0 })).toEqual({
      blocks: [],
      parsed: true,
      timedOut: true,
    });
    expect(parser.workersStarted).toBe(0);
  });
});

describe('the worker in a process of its own (dist/)', () => {
  const dist = pathToFileURL(fileURLToPath(new URL('../../../dist/index.js', import.meta.url))).href;
  const distIngest = pathToFileURL(
    fileURLToPath(new URL('../../../dist/ingest/index.js', import.meta.url)),
  ).href;
  const runNode = (
    script: string,
    flags: readonly string[] = [],
  ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', script]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ code, stdout, stderr });
      });
    });

  // One process for both checks of the published entry (a process loading dist/ costs over a second of CPU).
  it(
    'stops the hostile document in the published build, where no tsx is loaded; keeps the process alive while a parse without a time limit runs, then lets it exit',
    async () => {
      // The hostile parse ends first (its timer gone with it); then no timer and no explicit exit: only the busy
      // worker holds the process open for the second parse, and the idle one it leaves must not.
      const { code, stdout, stderr } = await runNode(
        `import { parseFencesIsolated } from ${JSON.stringify(dist)};\n` +
          `const text = ${JSON.stringify(hostileNestedLists())};\n` +
          "const scan = await parseFencesIsolated(text, { timeLimitMs: 100, parser: 'micromark' });\n" +
          'console.log(JSON.stringify(scan));\n' +
          "parseFencesIsolated('```ts file=a.ts\\nx\\n```\\n').then((scan) => console.log(scan.blocks[0].declaredFile));",
      );
      expect(
        { code, stdout, stderr },
        'the hostile parse timed out, then a.ts, then the process exited',
      ).toEqual({
        code: 0,
        stdout: '{"blocks":[],"parsed":true,"timedOut":true}\na.ts\n',
        stderr: '',
      });
    },
    GUARD,
  );

  it(
    'starts its worker in a process run with V8 flags a worker may not be given (a heap cap, --expose-gc)',
    async () => {
      const { code, stdout, stderr } = await runNode(
        `import { IsolatedFenceParser } from ${JSON.stringify(distIngest)};\n` +
          'const parser = new IsolatedFenceParser();\n' +
          "const scan = await parser.parse('```ts file=a.ts\\nx\\n```\\n');\n" +
          'console.log(scan.blocks[0].declaredFile, parser.workersStarted, parser.fallback);\n' +
          'await parser.close();',
        ['--max-old-space-size=64', '--expose-gc', '--stack-size=900'],
      );
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'a.ts 1 undefined\n', stderr: '' });
    },
    GUARD,
  );
});
