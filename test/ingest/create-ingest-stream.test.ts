import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createIngestStream, ObjectWriterThread, runIngest } from '../../src/ingest/index.js';
import { STREAM_HELD_BYTES } from '../../src/ingest/kept-bytes.js';
import { objectPathOf } from '../../src/store/index.js';
import type {
  BlockPlacer,
  IngestedContent,
  IngestProblem,
  IngestStreamEvent,
  IngestStreamInternals,
  IngestStreamOptions,
} from '../../src/ingest/index.js';
import { randomCuts } from '../fence/corpus/generate-document.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';

const ids = { runId: 'run-1', nodeId: 'plan', docPath: 'docs/plan.md', durability: 'none' } as const;
const fixedClock = (): Date => new Date('2026-11-28T12:00:00.000Z');

/** What an ingest leaves: workspace/ and the saved document, the manifest but its timestamp, and the records' input. */
interface Ingested {
  readonly workspace: string;
  readonly document: string;
  readonly manifest: unknown;
  readonly placed: readonly { path: string; status: string; code: string | null; sha: string }[];
  /** The run's events.jsonl, each line but its timestamp. */
  readonly events: readonly unknown[];
}

const placedOf = (contents: readonly IngestedContent[]): Ingested['placed'] =>
  contents.map((content) => ({
    path: content.workspacePath,
    status: content.status,
    code: content.code,
    sha: Buffer.from(content.bytes).toString('base64'),
  }));

async function snapshot(projectDir: string, placed: Ingested['placed']): Promise<Ingested> {
  const manifest = JSON.parse(
    await readFile(path.join(projectDir, '.agent/runs/run-1/manifests/plan.json'), 'utf8'),
  ) as Record<string, unknown>;
  delete manifest.ts;
  const events = await readFile(path.join(projectDir, '.agent/runs/run-1/events.jsonl'), 'utf8').then(
    (text) =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const event = JSON.parse(line) as Record<string, unknown>;
          delete event.ts;
          return event;
        }),
    () => ['no events.jsonl'],
  );
  return {
    workspace: await treeDigest(path.join(projectDir, 'workspace')).catch(() => 'no workspace/'),
    document: await readFile(path.join(projectDir, ids.docPath)).then(
      (bytes) => bytes.toString('hex'),
      () => 'no document',
    ),
    manifest,
    placed,
    events,
  };
}

async function seeded(files: Record<string, string>): Promise<string> {
  const projectDir = await tempProject();
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(projectDir, relative)), { recursive: true });
    await writeFile(path.join(projectDir, relative), text);
  }
  await mkdir(path.join(projectDir, 'workspace'), { recursive: true });
  return projectDir;
}

async function postWrite(
  text: string,
  files: Record<string, string> = {},
  limits: IngestStreamOptions['limits'] = {},
): Promise<Ingested> {
  const projectDir = await seeded({ ...files, [ids.docPath]: text });
  let placed: Ingested['placed'] = [];
  await runIngest({
    projectDir,
    ...ids,
    limits,
    onPlaced: (contents) => {
      placed = [...placed, ...placedOf(contents)];
      return Promise.resolve();
    },
  });
  return snapshot(projectDir, placed);
}

/** Streams `text` cut at `cuts` into a fresh project; returns what it left and the events in order. */
async function streamed(
  text: string,
  cuts: readonly number[],
  files: Record<string, string> = {},
  extra: Partial<IngestStreamOptions> = {},
  internal: IngestStreamInternals = {},
): Promise<{
  ingested: Ingested;
  events: IngestStreamEvent[];
  projectDir: string;
  manifest: unknown;
  document: string;
}> {
  const projectDir = await seeded(files);
  let placed: Ingested['placed'] = [];
  const stream = createIngestStream(
    {
      projectDir,
      ...ids,
      now: fixedClock,
      onPlaced: (contents) => {
        placed = [...placed, ...placedOf(contents)];
        return Promise.resolve();
      },
      ...extra,
    },
    internal,
  );
  const events: IngestStreamEvent[] = [];
  const reading = (async () => {
    for await (const event of stream.readable) events.push(event);
  })();
  const writer = stream.writable.getWriter();
  let from = 0;
  for (const to of [...cuts, text.length]) {
    await writer.write(text.slice(from, to));
    from = to;
  }
  await writer.close();
  await reading;
  const ingested = await snapshot(projectDir, placed);
  return { ingested, events, projectDir, manifest: ingested.manifest, document: ingested.document };
}

const fixturesDir = path.resolve(import.meta.dirname, '../../fixtures/fence');
const fixtures = readdirSync(fixturesDir).map((name) => ({
  name,
  text: readFileSync(path.join(fixturesDir, name, 'input.md'), 'utf8'),
}));

/** Documents of the property: nested fences, CRLF, unicode, hostile paths, repeated paths, pre-existing files. */
const documents: { name: string; text: string; files?: Record<string, string> }[] = [
  {
    name: 'nested fences and a repeated path',
    text: `# Plan\n\n${fileBlock('md', 'README.md', '```ts\ninner\n```\n', '````')}\n${fileBlock('ts', 'src/a.ts', 'v1')}\n${fileBlock('ts', 'src/a.ts', 'v2')}\ntext\n`,
  },
  {
    name: 'CRLF and unicode',
    text: '```ts file=src/é.ts\r\nconst s = "😀 — ü";\r\n```\r\n\r\n> ```py file=q/ü.py\r\n> x = 1\r\n> ```\r\n',
  },
  {
    name: 'hostile paths',
    text: `${fileBlock('sh', '../escape.sh', 'rm -rf /')}\n${fileBlock('ts', '/abs.ts', 'x')}\n${fileBlock('ts', 'ok/../../x.ts', 'x')}\n${fileBlock('ts', 'fine.ts', 'kept')}\n`,
  },
  {
    name: 'a file already holding the last version',
    text: `${fileBlock('ts', 'src/a.ts', 'v1')}\n${fileBlock('ts', 'src/a.ts', 'v2')}\n${fileBlock('ts', 'same.ts', 'same')}`,
    files: { 'workspace/src/a.ts': 'v2\n', 'workspace/same.ts': 'same\n' },
  },
  {
    // The stream first writes over a file of another size: what it held is read on the way, for the last block.
    name: 'a file of another size already holding the last version',
    text: `${fileBlock('ts', 'b.ts', 'a first, longer version')}\n${fileBlock('ts', 'b.ts', 'last')}\n`,
    files: { 'workspace/b.ts': 'last\n' },
  },
  {
    name: 'edit blocks: a file then its patch, a new file from /dev/null, a patch of a file on disk, one that fails',
    text: [
      fileBlock('ts', 'src/a.ts', 'one\ntwo\nthree'),
      fileBlock(
        'diff',
        'src/a.ts',
        '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three',
      ),
      fileBlock('diff', 'new.ts', '--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+created'),
      fileBlock('patch', 'old.ts', '--- a/old.ts\n+++ b/old.ts\n@@ -1 +1 @@\n-before\n+after'),
      fileBlock('diff', 'old.ts', '--- a/old.ts\n+++ b/old.ts\n@@ -1 +1 @@\n-missing\n+never'),
      fileBlock('diff', 'fix.patch', '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b'),
    ].join('\n'),
    files: { 'workspace/old.ts': 'before\n' },
  },
  {
    name: 'a patched file written again by a later whole block',
    text: [
      fileBlock('ts', 'a.ts', 'x\ny'),
      fileBlock('diff', 'a.ts', '--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n-x\n+X\n y'),
      fileBlock('ts', 'a.ts', 'final'),
    ].join('\n'),
  },
  {
    name: 'an unterminated block at the end',
    text: `${fileBlock('ts', 'a.ts', 'a')}\n\`\`\`ts file=cut.ts\nhalf`,
  },
  ...fixtures,
];

describe('createIngestStream', () => {
  it.each(documents)(
    'leaves what a post-write ingest leaves for $name, however the text is cut',
    async ({ text, files }) => {
      const expected = await postWrite(text, files);
      const chunkings = [
        [],
        Array.from({ length: text.length - 1 }, (_, i) => i + 1),
        randomCuts(text.length, text.length, 17),
      ];
      // Every single split point for a small document, every seventh for a larger one.
      const step = text.length > 200 ? 7 : 1;
      for (let at = 1; at < text.length; at += step) chunkings.push([at]);
      for (const cuts of chunkings) {
        const { ingested } = await streamed(text, cuts, files);
        expect(ingested, `cut at ${cuts.slice(0, 3).join(',')}…`).toEqual(expected);
      }
    },
    60_000,
  );
});

/** The `block.skipped` events, each as [declared_file, reason code]. */
function skippedOf(events: readonly IngestStreamEvent[]): [string, string | null][] {
  return events.flatMap((event) =>
    event.type === 'block.skipped'
      ? [[event.block.declaredFile, event.block.code] as [string, string | null]]
      : [],
  );
}

/** Each manifest entry as [declared_file, status, reason code, warning codes]. */
function entriesOf(manifest: unknown): [string, string, string, string[]][] {
  const { artifacts } = manifest as {
    artifacts: { declared_file: string; status: string; reason: string; warnings?: string[] }[];
  };
  const codeOf = (text: string): string => text.split(':')[0] ?? '';
  return artifacts.map((entry) => [
    entry.declared_file,
    entry.status,
    codeOf(entry.reason),
    (entry.warnings ?? []).map(codeOf),
  ]);
}

async function readEventsFile(projectDir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(projectDir, '.agent/runs/run-1/events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function workspaceFiles(projectDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    const { readdir } = await import('node:fs/promises');
    for (const entry of await readdir(path.join(projectDir, 'workspace', relative), {
      withFileTypes: true,
    })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else files[child] = await readFile(path.join(projectDir, 'workspace', child), 'utf8');
    }
  };
  await walk('');
  return files;
}

describe('createIngestStream events', () => {
  it('hands back a block decided, its file on disk, before the next chunk is fed', async () => {
    const projectDir = await seeded({});
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const next = async (): Promise<IngestStreamEvent | undefined> => (await reader.read()).value;

    void writer.write('intro\n```ts file=src/a.ts\nconst a');
    expect(await next()).toEqual({ type: 'block.opened', index: 0, lang: 'ts', declaredFile: 'src/a.ts' });
    void writer.write(' = 1;\n``');
    void writer.write('`\n```py file=b.py\n');
    const written = await next();
    expect(written).toMatchObject({
      type: 'block.written',
      block: { index: 0, workspacePath: 'workspace/src/a.ts' },
    });
    // The file is in place when its event arrives, before the next block's opening is announced.
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('const a = 1;\n');
    expect(await next()).toEqual({ type: 'block.opened', index: 1, lang: 'py', declaredFile: 'b.py' });
    void writer.write('b = 2\n```\n```ts file=../bad.ts\nx\n```\n```ts file=src/a.ts\nagain\n```\n');
    void writer.close();
    const rest: IngestStreamEvent[] = [];
    for (let event = await next(); event !== undefined; event = await next()) rest.push(event);
    expect(rest.map((event) => event.type)).toEqual([
      'block.written',
      'block.opened',
      'block.rejected',
      'block.opened',
      'block.written',
      'block.superseded',
      'document.done',
    ]);
    expect(rest[2]).toMatchObject({ block: { code: 'traversal' } });
    expect(rest[5]).toMatchObject({ block: { index: 0, code: 'superseded' } });
    const done = rest.at(-1);
    expect(done).toMatchObject({
      type: 'document.done',
      cutOff: false,
      manifest: { summary: { total_blocks: 4, written: 2 } },
    });
    expect(await readFile(path.join(projectDir, ids.docPath), 'utf8')).toContain('again');
  });

  it('keeps the earlier of two case-colliding files written, marked decided_while_streaming, and rejects the later', async () => {
    const text = `${fileBlock('ts', 'src/Util.ts', 'one')}\n${fileBlock('ts', 'src/util.ts', 'two')}`;
    const { events, manifest, projectDir } = await streamed(text, []);
    expect(events.filter((event) => event.type !== 'block.opened').map((event) => event.type)).toEqual([
      'block.written',
      'block.rejected',
      'document.done',
    ]);
    expect(entriesOf(manifest)).toEqual([
      ['src/Util.ts', 'written', '', ['decided_while_streaming']],
      ['src/util.ts', 'rejected', 'case_collision', []],
    ]);
    expect(manifest).toMatchObject({ summary: { written: 1, rejected: 1 } });
    expect(await workspaceFiles(projectDir)).toEqual({ 'src/Util.ts': 'one\n' });
    // A post-write ingest refuses both: the stream could not unwrite the first.
    expect((await postWrite(text)).manifest).toMatchObject({ summary: { written: 0, rejected: 2 } });
  });

  it('counts the candidates past max_blocks in one entry, as a post-write ingest does, however the text is cut', async () => {
    const text = [
      fileBlock('ts', 'a.ts', 'a'),
      fileBlock('ts', '../b.ts', 'b'),
      fileBlock('ts', 'c.ts', 'c'),
      fileBlock('ts', 'd.ts', 'd'),
      fileBlock('', 'e.ts', 'e'),
      '```ts file=cut.ts\nhalf',
    ].join('\n');
    const limits = { maxBlocks: 2 };
    const expected = await postWrite(text, {}, limits);
    expect(expected.manifest).toMatchObject({
      summary: { total_blocks: 6, written: 1, rejected: 1, skipped: 4 },
    });
    for (const cuts of [[], [7], [text.length - 3], randomCuts(text.length, 11, 9)]) {
      expect((await streamed(text, cuts, {}, { limits })).ingested).toEqual(expected);
    }
    // While streaming, a candidate past the limit is only counted: no event names it, as no manifest entry does.
    const { events } = await streamed(text, [], {}, { limits });
    const indexOf = (event: IngestStreamEvent): number | null =>
      'block' in event ? event.block.index : 'index' in event ? event.index : null;
    expect(events.map((event) => [event.type, indexOf(event)])).toEqual([
      ['block.opened', 0],
      ['block.written', 0],
      ['block.opened', 1],
      ['block.rejected', 1],
      ['document.done', null],
    ]);
  });

  it('writes at the end a block refused while streaming for max_total_bytes, once a later version of another file makes room', async () => {
    // a.ts (8 bytes) then b.ts (3) pass 10 bytes: the stream refuses b.ts; the shorter a.ts that follows
    // supersedes the first, so the whole document (3 + 2 bytes) fits, and b.ts is written at the end.
    const text = [
      fileBlock('ts', 'a.ts', 'aaaaaaa'),
      fileBlock('ts', 'b.ts', 'bb'),
      fileBlock('ts', 'a.ts', 'a'),
    ].join('\n');
    const limits = { maxTotalBytes: 10 };
    const expected = await postWrite(text, {}, limits);
    expect(entriesOf(expected.manifest)).toEqual([
      ['a.ts', 'skipped', 'superseded', []],
      ['b.ts', 'written', '', []],
      ['a.ts', 'written', '', []],
    ]);
    const { ingested, events } = await streamed(text, [], {}, { limits });
    // While streaming, b.ts was refused; at the end it is written.
    expect(skippedOf(events)).toEqual([['b.ts', 'too_large']]);
    expect(ingested).toEqual(expected);
  });

  it('ingests a lone surrogate as U+FFFD, as the saved document holds it', async () => {
    const text = `${fileBlock('ts', 'a.ts', 'x\uD800y')}\n${fileBlock('ts', 'b.ts', 'tail \uD83D')}`;
    const expected = await postWrite(text);
    for (const cuts of [[], [text.indexOf('\uD800') + 1], [text.length - 1]]) {
      expect((await streamed(text, cuts)).ingested).toEqual(expected);
    }
  });
});

describe('createIngestStream when cut off', () => {
  it('keeps what was decided when the signal aborts mid-block, saves no document and writes nothing partial', async () => {
    const projectDir = await seeded({});
    const controller = new AbortController();
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock, signal: controller.signal });
    const writer = stream.writable.getWriter();
    const events: IngestStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream.readable) events.push(event);
    })();
    await writer.write(`${fileBlock('ts', 'done.ts', 'kept')}\n\`\`\`ts file=half.ts\nfirst line\n\`\`\``);
    controller.abort(new Error('user pressed stop'));
    await reading;
    expect(events.map((event) => event.type)).toEqual([
      'block.opened',
      'block.written',
      'block.opened',
      // The block open at the cut is decided at the end, as a post-write ingest of the text before it decides it.
      'block.skipped',
      'document.done',
    ]);
    const done = events.at(-1);
    if (done?.type !== 'document.done') throw new Error('no document.done event');
    expect(done.cutOff).toBe(true);
    // The document was being saved as it streamed: its temp file is gone with it.
    expect((await readdir(path.join(projectDir, 'docs'))).filter((name) => name.endsWith('.tmp'))).toEqual(
      [],
    );
    expect(done.problems.map((problem) => problem.code)).toEqual(['cut_off']);
    expect(done.problems[0]?.message).toContain('user pressed stop');
    expect(entriesOf(done.manifest)).toEqual([
      ['done.ts', 'written', '', []],
      ['half.ts', 'skipped', 'unterminated', []],
    ]);
    expect(await workspaceFiles(projectDir)).toEqual({ 'done.ts': 'kept\n' });
    await expect(readFile(path.join(projectDir, ids.docPath))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readEventsFile(projectDir)).toContainEqual(
      expect.objectContaining({ event: 'ingest.error', code: 'cut_off' }),
    );
    await expect(writer.write('more')).rejects.toBeDefined();
  });

  it('decides nothing when its signal is already aborted', async () => {
    const projectDir = await seeded({});
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock, signal: AbortSignal.abort() });
    const events: IngestStreamEvent[] = [];
    for await (const event of stream.readable) events.push(event);
    await expect(stream.writable.getWriter().write(fileBlock('ts', 'a.ts', 'a'))).rejects.toBeDefined();
    expect(events.map((event) => event.type)).toEqual(['document.done']);
    expect(await workspaceFiles(projectDir)).toEqual({});
    await expect(readFile(path.join(projectDir, ids.docPath))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('records the document as cut off when its source fails', async () => {
    const projectDir = await seeded({});
    const source = new ReadableStream<string>({
      start(controller) {
        controller.enqueue(`${fileBlock('ts', 'done.ts', 'kept')}\n\`\`\`ts file=half.ts\nx\n`);
      },
      pull(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const events: IngestStreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of source.pipeThrough(stream)) events.push(event);
      })(),
    ).rejects.toThrow('connection reset');
    expect(events.map((event) => event.type)).toContain('block.written');
    expect(await workspaceFiles(projectDir)).toEqual({ 'done.ts': 'kept\n' });
    await expect(readFile(path.join(projectDir, ids.docPath))).rejects.toMatchObject({ code: 'ENOENT' });
    const manifest = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/run-1/manifests/plan.json'), 'utf8'),
    ) as unknown;
    expect(manifest).toMatchObject({ summary: { total_blocks: 2, written: 1, skipped: 1 } });
    const error = (await readEventsFile(projectDir)).find((event) => event.event === 'ingest.error');
    expect(error).toMatchObject({ code: 'cut_off' });
    expect(error?.message).toContain('connection reset');
  });

  it('stops deciding at max_document_bytes: earlier blocks stay, the rest is not ingested', async () => {
    const text = `${fileBlock('ts', 'a.ts', 'a')}\n${fileBlock('ts', 'b.ts', 'b'.repeat(200))}`;
    const { events, manifest, projectDir, document } = await streamed(
      text,
      [30, 60],
      {},
      { limits: { maxDocumentBytes: 100 } },
    );
    expect(document).toBe('no document');
    expect(events.at(-1)).toMatchObject({ problems: [{ code: 'too_large' }], cutOff: false });
    // The text counts up to its last complete line before the limit: b.ts is open there.
    expect(entriesOf(manifest)).toEqual([
      ['a.ts', 'written', '', []],
      ['b.ts', 'skipped', 'unterminated', []],
    ]);
    expect(await workspaceFiles(projectDir)).toEqual({ 'a.ts': 'a\n' });
  });
});

describe('createIngestStream saving and locking', () => {
  it('saves the document as it streams, so its folder holds a temp file until the end places it', async () => {
    const projectDir = await seeded({});
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const reading = (async () => {
      await stream.readable.pipeTo(new WritableStream());
    })();
    const writer = stream.writable.getWriter();
    await writer.write(fileBlock('ts', 'a.ts', 'a'));
    // The temp file is opened as soon as text comes (asynchronously: it may take a moment to appear).
    await vi.waitFor(async () => {
      const during = await readdir(path.join(projectDir, 'docs'));
      expect(during).toHaveLength(1);
      expect(during[0]).toMatch(/\.tmp$/);
    });
    await writer.write('tail without a newline');
    await writer.close();
    await reading;
    expect(await readdir(path.join(projectDir, 'docs'))).toEqual(['plan.md']);
    expect(await readFile(path.join(projectDir, ids.docPath), 'utf8')).toBe(
      `${fileBlock('ts', 'a.ts', 'a')}tail without a newline`,
    );
  });

  it('places each block as it closes when no lock can be made (.agent/ is a file), as a post-write ingest places them without it', async () => {
    const text = [fileBlock('ts', 'a.ts', 'a'), fileBlock('ts', 'b.ts', 'b')].join('\n');
    const postDir = await seeded({ '.agent': 'not a folder', [ids.docPath]: text });
    const expected = await runIngest({ projectDir: postDir, ...ids, now: fixedClock });
    expect(expected.problems.map((problem) => problem.message)).toContainEqual(
      expect.stringMatching(/workspace\/ is written without the lock$/),
    );
    const projectDir = await seeded({ '.agent': 'not a folder' });
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const events: IngestStreamEvent[] = [];
    const onDisk: boolean[] = [];
    const reading = (async () => {
      for await (const event of stream.readable) {
        events.push(event);
        // Each file is on disk when its block's event comes.
        if (event.type === 'block.written')
          onDisk.push(
            await readFile(path.join(projectDir, event.block.workspacePath)).then(
              () => true,
              () => false,
            ),
          );
      }
    })();
    const writer = stream.writable.getWriter();
    for (const line of text.split(/(?<=\n)/)) await writer.write(line);
    await writer.close();
    await reading;
    expect(onDisk).toEqual([true, true]);
    const done = events.at(-1);
    if (done?.type !== 'document.done') throw new Error('no document.done');
    expect(done.manifestPath).toBeNull();
    // The same problems, each project's folder aside.
    const problems = (list: readonly IngestProblem[], dir: string): IngestProblem[] =>
      list.map((problem) => ({ ...problem, message: problem.message.replaceAll(dir, '<project>') }));
    expect(problems(done.problems, projectDir)).toEqual(problems(expected.problems, postDir));
    expect(entriesOf(done.manifest)).toEqual(entriesOf(expected.manifest));
    expect(await workspaceFiles(projectDir)).toEqual(await workspaceFiles(postDir));
  });

  it('reports a document it cannot save as io_error, and still writes the blocks and the manifest', async () => {
    // docs/plan.md cannot be made: docs is a file.
    const { events, projectDir: dir } = await streamed(fileBlock('ts', 'a.ts', 'a'), [5], {
      docs: 'not a folder',
    });
    const done = events.at(-1);
    if (done?.type !== 'document.done') throw new Error('no document.done event');
    expect(done.problems.map((problem) => problem.code)).toEqual(['io_error']);
    expect(done.problems[0]?.message).toContain('cannot save docs/plan.md');
    expect(entriesOf(done.manifest)).toEqual([['a.ts', 'written', '', []]]);
    expect(await workspaceFiles(dir)).toEqual({ 'a.ts': 'a\n' });
  });

  it('lets the workspace lock go while the model pauses: another ingest of the project is not kept waiting', async () => {
    const projectDir = await seeded({ 'docs/other.md': fileBlock('ts', 'other.ts', 'o') });
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const reading = (async () => {
      await stream.readable.pipeTo(new WritableStream());
    })();
    const writer = stream.writable.getWriter();
    await writer.write(`${fileBlock('ts', 'a.ts', 'a')}\n\`\`\`ts file=b.ts\nhalf`);
    // The stream is mid-block and waiting for the model; a post-write ingest that may wait only 2 s gets the lock.
    const other = await runIngest({
      projectDir,
      docPath: 'docs/other.md',
      runId: 'run-1',
      nodeId: 'other',
      durability: 'none',
      lockWaitMs: 2_000,
    });
    expect(other.problems).toEqual([]);
    expect(other.manifest.summary).toMatchObject({ written: 1 });
    await writer.write('\n```\n');
    await writer.close();
    await reading;
    expect(await workspaceFiles(projectDir)).toEqual({ 'a.ts': 'a\n', 'b.ts': 'half\n', 'other.ts': 'o\n' });
  });
});

describe('createIngestStream beside another stream of the same project', () => {
  it('lets two streams share the workspace lock, chunk by chunk: both documents end whole, every file written', async () => {
    const projectDir = await seeded({});
    const documents = [0, 1].map((n) =>
      Array.from({ length: 20 }, (_, k) =>
        fileBlock('ts', `n${String(n)}/f${String(k)}.ts`, `v${String(k)}`),
      ).join('\n'),
    );
    const streams = documents.map((_, n) =>
      createIngestStream({
        projectDir,
        runId: 'run-1',
        nodeId: `node${String(n)}`,
        docPath: `docs/node${String(n)}.md`,
        durability: 'none',
        now: fixedClock,
      }),
    );
    const ends = streams.map((stream) =>
      (async () => {
        let last: IngestStreamEvent | undefined;
        for await (const event of stream.readable) last = event;
        return last;
      })(),
    );
    const writers = streams.map((stream) => stream.writable.getWriter());
    // Interleaved in 7-character chunks: each stream's blocks close between the other's.
    const longest = Math.max(...documents.map((text) => text.length));
    for (let at = 0; at < longest; at += 7) {
      await Promise.all(writers.map((writer, n) => writer.write(documents[n]?.slice(at, at + 7) ?? '')));
    }
    await Promise.all(writers.map((writer) => writer.close()));
    const done = await Promise.all(ends);
    for (const event of done) {
      expect(event).toMatchObject({
        type: 'document.done',
        problems: [],
        manifest: { summary: { written: 20 } },
      });
    }
    const files = await workspaceFiles(projectDir);
    expect(Object.keys(files)).toHaveLength(40);
    expect(files['n1/f19.ts']).toBe('v19\n');
  });
});

describe('createIngestStream back-pressure', () => {
  it('takes no more text while its reader does not read', async () => {
    const projectDir = await seeded({});
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock });
    const writer = stream.writable.getWriter();
    const block = (i: number): string => fileBlock('ts', `f${i}.ts`, String(i));
    const writes = Array.from({ length: 5 }, (_, i) => writer.write(block(i)));
    let settled = 0;
    for (const write of writes) void write.then(() => settled++);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Each chunk ends a block: its events wait in the readable queue, and the writes behind them wait too.
    expect(settled).toBeLessThan(5);
    expect(await workspaceFiles(projectDir)).not.toHaveProperty('f4.ts');
    void writer.close();
    const events: IngestStreamEvent[] = [];
    for await (const event of stream.readable) events.push(event);
    expect(settled).toBe(5);
    expect(events.filter((event) => event.type === 'block.written')).toHaveLength(5);
  });
});

describe('createIngestStream memory', () => {
  // 1 MiB files, more of them than the stream holds in memory (STREAM_HELD_BYTES).
  const body = (n: number): string =>
    `// file ${String(n)}\n${`${'y'.repeat(60)} ${String(n)}\n`.repeat(16_000)}`;
  const text = Array.from({ length: 7 }, (_, n) => fileBlock('ts', `src/f${String(n)}.ts`, body(n))).join(
    '\n',
  );

  async function streamWhole(
    projectDir: string,
    onPlaced: (contents: readonly IngestedContent[]) => Promise<void>,
    beforeEnd: (written: readonly string[]) => Promise<void> = () => Promise.resolve(),
  ): Promise<IngestStreamEvent[]> {
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock, onPlaced });
    const events: IngestStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream.readable) events.push(event);
    })();
    const writer = stream.writable.getWriter();
    for (let at = 0; at < text.length; at += 100_000) await writer.write(text.slice(at, at + 100_000));
    await beforeEnd(events.flatMap((event) => (event.type === 'block.written' ? [event.block.sha256] : [])));
    await writer.close();
    await reading;
    return events;
  }

  it('hands onPlaced the files in document order, in batches of at most STREAM_HELD_BYTES, as a post-write ingest places them', async () => {
    const expected = await postWrite(text);
    const calls: IngestedContent[][] = [];
    await streamWhole(await seeded({}), (contents) => {
      calls.push([...contents]);
      return Promise.resolve();
    });
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      const bytes = call.reduce((sum, content) => sum + content.bytes.byteLength, 0);
      if (call.length > 1) expect(bytes).toBeLessThanOrEqual(STREAM_HELD_BYTES);
    }
    expect(placedOf(calls.flat())).toEqual(expected.placed);
  });

  it('writes at the end, from the object store, a block it refused while streaming and kept there', async () => {
    // f0..f4 (5 MiB) pass STREAM_HELD_BYTES; g (1.5 MiB) then passes max_total_bytes and is refused, its bytes
    // kept in the object store; the short f0 that follows makes room, so the end writes g from there.
    const mib = (n: number, fill: string): string => `${fill.repeat(63)}\n`.repeat((n * 1024 * 1024) / 64);
    const blocks = Array.from({ length: 5 }, (_, n) =>
      fileBlock('ts', `f${String(n)}.ts`, mib(1, String(n))),
    );
    const text = [...blocks, fileBlock('ts', 'g.ts', mib(1.5, 'g')), fileBlock('ts', 'f0.ts', 'short')].join(
      '\n',
    );
    const limits = { maxTotalBytes: 6 * 1024 * 1024 };
    const expected = await postWrite(text, {}, limits);
    expect(entriesOf(expected.manifest).map(([file, status]) => `${file} ${status}`)).toEqual([
      'f0.ts skipped',
      ...[1, 2, 3, 4].map((n) => `f${String(n)}.ts written`),
      'g.ts written',
      'f0.ts written',
    ]);
    const { ingested, events } = await streamed(text, randomCuts(text.length, 7, 40), {}, { limits });
    expect(skippedOf(events)).toEqual([['g.ts', 'too_large']]);
    expect(ingested).toEqual(expected);
  });

  it('writes nothing for a document whose path holds a credential, not even an object of its blocks', async () => {
    const docPath = `docs/ghp_${'a1'.repeat(18)}.md`;
    const postDir = await seeded({ [docPath]: text });
    const expected = await runIngest({ projectDir: postDir, ...ids, docPath, now: fixedClock });
    const projectDir = await seeded({});
    const stream = createIngestStream({ projectDir, ...ids, docPath, now: fixedClock });
    const events: IngestStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream.readable) events.push(event);
    })();
    const writer = stream.writable.getWriter();
    for (let at = 0; at < text.length; at += 100_000) await writer.write(text.slice(at, at + 100_000));
    await writer.close();
    await reading;
    expect(skippedOf(events)).toHaveLength(0);
    expect(events.filter((event) => event.type === 'block.rejected')).toHaveLength(7);
    const done = events.at(-1);
    if (done?.type !== 'document.done') throw new Error('no document.done');
    expect(done.manifestPath).toBeNull();
    expect(done.problems.map((problem) => problem.code)).toEqual(
      expected.problems.map((problem) => problem.code),
    );
    expect(entriesOf(done.manifest)).toEqual(entriesOf(expected.manifest));
    // No document (no temp file either), no file.
    await expect(readdir(path.join(projectDir, 'docs'))).rejects.toThrow(/ENOENT/);
    expect(await readdir(path.join(projectDir, 'workspace'))).toEqual([]);
    // Past STREAM_HELD_BYTES, no block's bytes went to the object store either: .agent/ holds no object.
    await expect(readdir(path.join(projectDir, '.agent/objects'))).rejects.toThrow(/ENOENT/);
  });

  it('says which file it could not read back to record, and records the others', async () => {
    const projectDir = await seeded({});
    const placed: IngestedContent[] = [];
    const events = await streamWhole(
      projectDir,
      (contents) => {
        placed.push(...contents);
        return Promise.resolve();
      },
      // The last file's bytes went to the object store: they are gone when the end reads them back.
      async (written) => {
        expect(written).toHaveLength(7);
        await rm(path.join(projectDir, '.agent/objects', objectPathOf(written[6] ?? '')));
      },
    );
    const done = events.at(-1);
    if (done?.type !== 'document.done') throw new Error('no document.done');
    expect(entriesOf(done.manifest).map(([file, status]) => [file, status])).toEqual(
      Array.from({ length: 7 }, (_, n) => [`src/f${String(n)}.ts`, 'written']),
    );
    expect(done.problems).toEqual([
      {
        code: 'io_error',
        message: expect.stringMatching(
          /^workspace\/src\/f6\.ts was written, but its bytes could not be read back/,
        ) as unknown,
      },
    ]);
    expect(placed.map((content) => content.workspacePath)).toEqual(
      Array.from({ length: 6 }, (_, n) => `workspace/src/f${String(n)}.ts`),
    );
    expect(Buffer.from(placed[5]?.bytes ?? []).toString()).toBe(body(5));
  });
});

describe('createIngestStream with blocks placed by the placing thread (D135)', () => {
  // The thread takes a stream's blocks once it has placed 32 files: each document here starts with 32.
  const prefix = Array.from({ length: 32 }, (_, n) =>
    fileBlock('ts', `pre/f${String(n)}.ts`, `pre ${String(n)}`),
  ).join('\n');
  let thread: ObjectWriterThread;
  beforeAll(async () => {
    thread = new ObjectWriterThread();
    thread.start();
    await vi.waitFor(
      () => {
        expect(thread.ready).toBe(true);
      },
      { timeout: 30_000 },
    );
  }, 30_000);
  afterAll(async () => {
    await thread.close();
  });

  /** The thread, counting the blocks it was sent, and holding its answers back while `held` is set. */
  function watched(): { placer: BlockPlacer; sent: () => number; hold: () => void; release: () => void } {
    let sent = 0;
    let gate: Promise<void> | undefined;
    let open = (): void => undefined;
    const placer: BlockPlacer = {
      get ready() {
        return thread.ready;
      },
      place: (request) => {
        const answer = thread.place(request);
        if (answer === undefined) return undefined;
        sent += 1;
        const held = gate;
        return held === undefined ? answer : answer.then(async (value) => held.then(() => value));
      },
      finishBatch: (session) => thread.finishBatch(session),
      recordsStarting: (session) => thread.recordsStarting(session),
      endSession: (session) => thread.endSession(session),
    };
    return {
      placer,
      sent: () => sent,
      hold: () => {
        gate = new Promise((resolve) => (open = resolve));
      },
      release: () => {
        gate = undefined;
        open();
      },
    };
  }

  /**
   * A stream of `projectDir` through the watched thread, fed the 32 files after which the thread takes its blocks,
   * with the thread's answers held back from then on; its events gathered as they come.
   */
  async function heldBack(
    projectDir: string,
    internal: Omit<IngestStreamInternals, 'placer'> = {},
  ): Promise<
    Omit<ReturnType<typeof watched>, 'placer' | 'hold'> & {
      events: IngestStreamEvent[];
      reading: Promise<void>;
      writer: WritableStreamDefaultWriter<string>;
    }
  > {
    const { placer, sent, hold, release } = watched();
    const stream = createIngestStream({ projectDir, ...ids, now: fixedClock }, { ...internal, placer });
    const events: IngestStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream.readable) events.push(event);
    })();
    const writer = stream.writable.getWriter();
    await writer.write(`${prefix}\n`);
    hold();
    return { events, reading, writer, sent, release };
  }

  const threadDocuments: {
    name: string;
    text: string;
    files?: Record<string, string>;
    limits?: IngestStreamOptions['limits'];
  }[] = [
    ...documents.filter((document) => !fixtures.includes(document as (typeof fixtures)[number])),
    {
      name: 'two paths a case-insensitive filesystem merges',
      text: `${fileBlock('ts', 'src/Name.ts', 'first')}\n${fileBlock('ts', 'src/name.ts', 'second')}\n`,
    },
    {
      // Each block fits; together they pass max_total_bytes, decided as the thread answers.
      name: 'files past max_total_bytes',
      text: Array.from({ length: 6 }, (_, n) =>
        fileBlock('ts', `big/b${String(n)}.ts`, 'z'.repeat(400)),
      ).join('\n'),
      limits: { maxTotalBytes: 2_400 },
    },
    {
      name: 'a file and a folder of the same name',
      text: `${fileBlock('ts', 'x.ts', 'file')}\n${fileBlock('ts', 'x.ts/inner.ts', 'under a file')}\n`,
    },
  ];

  it.each(threadDocuments)(
    'leaves what it leaves placing every block itself, events included, for $name, however the text is cut',
    async ({ text: body, files, limits = {} }) => {
      const text = `${prefix}\n${body}`;
      const chunkings = [
        [],
        Array.from({ length: Math.ceil(text.length / 20) - 1 }, (_, i) => (i + 1) * 20),
        randomCuts(text.length, 60, 5),
        randomCuts(text.length, 200, 11),
      ];
      for (const cuts of chunkings) {
        const alone = await streamed(text, cuts, files, { limits }, { placer: null });
        const { placer, sent } = watched();
        const threaded = await streamed(text, cuts, files, { limits }, { placer });
        const label = `cut at ${cuts.slice(0, 3).join(',')}…`;
        expect(threaded.ingested, label).toEqual(alone.ingested);
        expect(threaded.events, label).toEqual(alone.events);
        // The thread placed the blocks after the 32 (a document refused whole places none).
        expect(sent()).toBeGreaterThan(0);
      }
    },
    60_000,
  );

  it('settles a write once its blocks are sent, and gives each event only once the thread has placed the file', async () => {
    const projectDir = await seeded({});
    const { events, reading, writer, sent, release } = await heldBack(projectDir);
    expect(sent()).toBe(0);
    await writer.write(fileBlock('ts', 'late.ts', 'placed by the thread'));
    // The write settled with the block on the thread, its answer held back: no event yet.
    expect(sent()).toBe(1);
    const isLate = (event: IngestStreamEvent): boolean =>
      event.type === 'block.written' && event.block.declaredFile === 'late.ts';
    expect(events.some(isLate)).toBe(false);
    release();
    await vi.waitFor(() => {
      expect(events.some(isLate)).toBe(true);
    });
    expect(await readFile(path.join(projectDir, 'workspace/late.ts'), 'utf8')).toBe('placed by the thread\n');
    await writer.close();
    await reading;
    expect(events.at(-1)).toMatchObject({ type: 'document.done', manifest: { summary: { written: 33 } } });
  });

  it('lets the workspace lock go only once the thread has placed the blocks it was sent', async () => {
    const projectDir = await seeded({
      'docs/first.md': fileBlock('ts', 'first.ts', 'f'),
      'docs/other.md': fileBlock('ts', 'other.ts', 'o'),
    });
    const other = (name: string): ReturnType<typeof runIngest> =>
      runIngest({
        projectDir,
        docPath: `docs/${name}.md`,
        runId: 'run-1',
        nodeId: name,
        durability: 'none',
        lockWaitMs: 10_000,
      });
    // Nothing holds the lock: a post-write ingest of the project goes through (and its parse worker is started).
    expect((await other('first')).manifest.summary).toMatchObject({ written: 1 });
    const { reading, writer, sent, release } = await heldBack(projectDir);
    await writer.write(fileBlock('ts', 'late.ts', 'x'));
    expect(sent()).toBe(1);
    // Well past the lock's 20 ms linger, another post-write ingest still waits: the thread's answer is held back.
    let otherDone = false;
    const waiting = other('other').then((result) => {
      otherDone = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(otherDone).toBe(false);
    release();
    expect((await waiting).manifest.summary).toMatchObject({ written: 1 });
    await writer.close();
    await reading;
  });

  it('waits for the thread once 1 MiB of blocks is in flight (back-pressure)', async () => {
    const projectDir = await seeded({});
    const { reading, writer, sent, release } = await heldBack(projectDir);
    const big = (n: number): string => fileBlock('ts', `big${String(n)}.ts`, String(n).repeat(300_000));
    // Three of 300 KB fit in 1 MiB: their writes settle with the answers held.
    for (const n of [0, 1, 2]) await writer.write(big(n));
    expect(sent()).toBe(3);
    let settled = false;
    const fourth = writer.write(big(3)).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    expect(sent()).toBe(3);
    release();
    await fourth;
    expect(sent()).toBe(4);
    await writer.close();
    await reading;
    expect(await readFile(path.join(projectDir, 'workspace/big3.ts'), 'utf8')).toBe(
      `${'3'.repeat(300_000)}\n`,
    );
  });

  it('settles each write only once its blocks are on disk when asked to (as the AI SDK adapter asks)', async () => {
    const projectDir = await seeded({});
    const { events, reading, writer, sent, release } = await heldBack(projectDir, { settleEachChunk: true });
    let settled = false;
    const writing = writer.write(fileBlock('ts', 'late.ts', 'x')).then(() => {
      settled = true;
    });
    await vi.waitFor(() => {
      expect(sent()).toBe(1);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    release();
    await writing;
    expect(events.at(-1)).toMatchObject({ type: 'block.written', block: { declaredFile: 'late.ts' } });
    await writer.close();
    await reading;
  });

  it('places the block itself, and every one after, when the thread is lost while placing', async () => {
    const text = `${prefix}\n${fileBlock('ts', 'a.ts', 'a')}\n${fileBlock('ts', 'b.ts', 'b')}\n${fileBlock('ts', 'a.ts', 'a2')}\n`;
    const expected = await postWrite(text);
    let asked = 0;
    const lost: BlockPlacer = {
      ready: true,
      place: () => {
        asked += 1;
        return Promise.reject(new Error('the object writer thread exited with code 1 while placing files'));
      },
      finishBatch: () => Promise.resolve(),
      recordsStarting: () => Promise.resolve(),
      endSession: () => Promise.resolve(),
    };
    const { ingested } = await streamed(text, [], {}, {}, { placer: lost });
    expect(ingested).toEqual(expected);
    expect(asked).toBe(1);
  });

  it('places on the calling thread an edit block and a block past 1 MiB, after the blocks sent before them', async () => {
    const big = 'w'.repeat(1024 * 1024 + 10);
    const text = [
      prefix,
      fileBlock('ts', 'src/a.ts', 'one\ntwo'),
      fileBlock('diff', 'src/a.ts', '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two'),
      fileBlock('txt', 'big.txt', big),
      fileBlock('ts', 'after.ts', 'after'),
    ].join('\n');
    const expected = await postWrite(text);
    const { placer, sent } = watched();
    const { ingested } = await streamed(text, randomCuts(text.length, 40, 3), {}, {}, { placer });
    expect(ingested).toEqual(expected);
    // src/a.ts and after.ts went to the thread; the patch and big.txt did not.
    expect(sent()).toBe(2);
  });
});
