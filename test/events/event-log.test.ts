import fs from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  EventLogError,
  eventLineSchema,
  memoryEventLog,
  openRunEventLog,
  type EventLevel,
  type EventLog,
} from '../../src/events/index.js';
import { fullDiskStore } from '../helpers/full-disk-store.js';
import { mountReadOnly } from '../helpers/read-only-mount.js';
import { openProject, openProjectStore } from '../../src/store/index.js';

const GITHUB_TOKEN = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const OPENAI_KEY = 'sk-proj-Xk3Lm9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8Qa1Ws4Ed7Rf0Tg3Yh6Uj9';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'event-log-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** The run's events.jsonl in the project `dir`, where `openRunEventLog(dir, 'r1')` writes. */
function eventsFile(): string {
  return path.join(dir, '.agent', 'runs', 'r1', 'events.jsonl');
}

/** Plants `text` as the run's events.jsonl, as an earlier writer left it. */
async function plantEvents(text: string): Promise<string> {
  const file = eventsFile();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/**
 * Spies on fs.writeSync as every module calls it, the named export of node:fs included (the store's appender
 * imports it so); `texts` are the bytes each call wrote, as UTF-8.
 */
function spyOnWriteSync(): { texts: () => string[]; restore: () => void } {
  const spy = vi.spyOn(fs, 'writeSync');
  syncBuiltinESMExports();
  return {
    texts: () => spy.mock.calls.map((call) => writtenText(call as readonly unknown[])),
    restore: () => {
      spy.mockRestore();
      syncBuiltinESMExports();
    },
  };
}

/** What one writeSync(fd, data, offset?, length?) call wrote, as UTF-8. */
function writtenText([, data, offset, length]: readonly unknown[]): string {
  if (typeof data === 'string') return data;
  const bytes = data as Uint8Array;
  const start = typeof offset === 'number' ? offset : 0;
  const end = typeof length === 'number' ? start + length : bytes.byteLength;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

async function readLines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('openRunEventLog line format', () => {
  it('writes one JSON object per line with ts, level and event, creating parent directories', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'ingest.block', { index: 0, status: 'written' });
    log.write('WARNING', 'ingest.summary', { total_blocks: 2, written: 0 });
    log.write('ERROR', 'ingest.error', { code: 'io_error' });
    await log.close();

    const lines = await readLines(file);
    expect(lines.map((line) => line['level'])).toEqual(['INFO', 'WARNING', 'ERROR']);
    expect(lines.map((line) => line['event'])).toEqual(['ingest.block', 'ingest.summary', 'ingest.error']);
    for (const line of lines) {
      expect(eventLineSchema.safeParse(line).success).toBe(true);
      expect(line['ts']).toMatch(ISO_MS);
      expect(Object.keys(line).slice(0, 3)).toEqual(['level', 'ts', 'event']);
      for (const absent of ['msg', 'time', 'pid', 'hostname', 'err']) expect(line).not.toHaveProperty(absent);
    }
    expect(lines[0]).toMatchObject({ index: 0, status: 'written' });
  });

  it('writes ts as the current UTC time with milliseconds', async () => {
    const file = eventsFile();
    const before = Date.now();
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'test.clock');
    await log.close();
    const [line] = await readLines(file);
    const ts = Date.parse(String(line?.['ts']));
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Date.now());
  });

  it('appends to an existing file instead of truncating it', async () => {
    const file = await plantEvents(
      '{"level":"INFO","ts":"2025-01-01T00:00:00.000Z","event":"runtime.start"}\n',
    );
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'ingest.summary');
    await log.close();
    const second = await openRunEventLog(dir, 'r1');
    second.write('INFO', 'ingest.summary');
    await second.close();
    expect((await readLines(file)).map((line) => line['event'])).toEqual([
      'runtime.start',
      'ingest.summary',
      'ingest.summary',
    ]);
  });

  it('starts the next event on a fresh line after a write that was cut off, so only the cut line fails to parse', async () => {
    const whole = '{"level":"INFO","ts":"2025-01-01T00:00:00.000Z","event":"runtime.start"}\n';
    // A full disk or a kill stopped the second line part-way.
    const file = await plantEvents(`${whole}{"level":"INFO","ts":"2025-01-01T00:00:01.000Z","ev`);
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'ingest.summary', { seq: 1 });
    log.write('INFO', 'ingest.summary', { seq: 2 });
    await log.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[1]).toBe('{"level":"INFO","ts":"2025-01-01T00:00:01.000Z","ev');
    const parsed = lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    expect(parsed.map((line) => [line['event'], line['seq']])).toEqual([
      ['runtime.start', undefined],
      ['ingest.summary', 1],
      ['ingest.summary', 2],
    ]);
    expect(lines).toHaveLength(4);
  });

  it('keeps msg only when a field supplies it and an err field as a plain field', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'test.message', { msg: 'hello' });
    log.write('ERROR', 'test.failure', { err: new Error('disk on fire') });
    await log.close();
    const [withMessage, withError] = await readLines(file);
    expect(withMessage?.['msg']).toBe('hello');
    expect(withError).not.toHaveProperty('msg');
    expect(withError?.['err']).toMatchObject({ type: 'Error', message: 'disk on fire' });
  });

  it('writes each event with exactly one fs.writeSync of one whole line, even past 16 KiB', async () => {
    const log = await openRunEventLog(dir, 'r1');
    const writeSync = spyOnWriteSync();
    const sizes = [10, 5_000, 20_000, 200_000];
    for (const size of sizes) log.write('INFO', 'test.size', { padding: 'p'.repeat(size) });
    const calls = writeSync.texts();
    writeSync.restore();
    await log.close();

    expect(calls).toHaveLength(sizes.length);
    for (const [index, data] of calls.entries()) {
      expect(data.endsWith('\n')).toBe(true);
      expect(data.indexOf('\n')).toBe(data.length - 1);
      expect(JSON.parse(data)).toMatchObject({ padding: 'p'.repeat(sizes[index] ?? 0) });
    }
  });
});

describe('openRunEventLog writeAll', () => {
  const entries = [1, 2, 3].map((seq) => ({
    level: 'INFO' as const,
    event: 'ingest.block',
    fields: { seq },
  }));

  it('appends every event with one fs.writeSync of whole lines, with the bindings of the member', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    const child = log.child({ run_id: 'r1' });
    const writeSync = spyOnWriteSync();
    child.writeAll(entries);
    const calls = writeSync.texts().length;
    writeSync.restore();
    log.write('INFO', 'ingest.summary', { seq: 4 });
    await log.close();
    expect(calls).toBe(1);
    const lines = await readLines(file);
    expect(lines.map((line) => [line['event'], line['seq'], line['run_id']])).toEqual([
      ['ingest.block', 1, 'r1'],
      ['ingest.block', 2, 'r1'],
      ['ingest.block', 3, 'r1'],
      ['ingest.summary', 4, undefined],
    ]);
    for (const line of lines) expect(eventLineSchema.safeParse(line).success).toBe(true);
  });

  it('starts the batch on a fresh line after a write that was cut off, so only the cut line is lost', async () => {
    const file = await plantEvents('{"level":"INFO","ts":"2025-01-01T00:00:01.000Z","ev');
    const log = await openRunEventLog(dir, 'r1');
    log.writeAll(entries);
    await log.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.slice(1, 4).map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual([1, 2, 3]);
    expect(lines[4]).toBe('');
  });

  it('appends the events before a misused one, then throws', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    expect(() => {
      log.writeAll([...entries.slice(0, 2), { level: 'INFO', event: 'Not Dotted' }, ...entries.slice(2)]);
    }).toThrow(/dotted lowercase/);
    log.write('INFO', 'ingest.summary');
    await log.close();
    expect((await readLines(file)).map((line) => line['seq'] ?? line['event'])).toEqual([
      1,
      2,
      'ingest.summary',
    ]);
  });

  it('keeps each event of a batch as its own line in a memory log', () => {
    const log = memoryEventLog({ run_id: 'r1' });
    log.writeAll(entries);
    expect(log.lines.map((line) => [line['seq'], line['run_id']])).toEqual([
      [1, 'r1'],
      [2, 'r1'],
      [3, 'r1'],
    ]);
  });
});

describe('openRunEventLog bindings and child', () => {
  it('adds bindings to every line and child bindings only to the child lines', async () => {
    const file = eventsFile();
    const root = await openRunEventLog(dir, 'r1', { run_id: 'r1' });
    const node = root.child({ node_id: 'n1', doc_path: 'docs/plan.md' });
    const leaf = node.child({ attempt: 2 });
    root.write('INFO', 'runtime.start');
    node.write('INFO', 'ingest.block', { index: 0 });
    leaf.write('INFO', 'ingest.block', { index: 1 });
    await root.close();

    const [rootLine, nodeLine, leafLine] = await readLines(file);
    expect(rootLine).toMatchObject({ run_id: 'r1' });
    expect(rootLine).not.toHaveProperty('node_id');
    expect(nodeLine).toMatchObject({ run_id: 'r1', node_id: 'n1', doc_path: 'docs/plan.md', index: 0 });
    expect(nodeLine).not.toHaveProperty('attempt');
    expect(leafLine).toMatchObject({ run_id: 'r1', node_id: 'n1', attempt: 2, index: 1 });
    expect(Object.keys(nodeLine ?? {})).toEqual([
      'level',
      'ts',
      'event',
      'run_id',
      'node_id',
      'doc_path',
      'index',
    ]);
  });

  it('lets a field override a binding of the same name without writing the key twice', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1', { node_id: 'from-binding' });
    log.write('INFO', 'ingest.block', { node_id: 'from-field' });
    await log.close();
    const text = await readFile(file, 'utf8');
    expect(text.match(/"node_id"/g)).toHaveLength(1);
    expect(JSON.parse(text)).toMatchObject({ node_id: 'from-field' });
  });

  it('closes the shared file from any member of the family, once', async () => {
    const root = await openRunEventLog(dir, 'r1', { run_id: 'r1' });
    const child = root.child({ node_id: 'n1' });
    child.write('INFO', 'ingest.block');
    const closing = child.close();
    expect(root.close()).toBe(closing);
    await closing;
    expect(() => {
      root.write('INFO', 'ingest.summary');
    }).toThrow(/closed/);
    expect(() => {
      child.write('INFO', 'ingest.summary');
    }).toThrow(/closed/);
  });
});

describe('openRunEventLog redaction', () => {
  it('redacts a token inside a path binding, a path field and an Error message in the file', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1', { doc_path: `docs/${GITHUB_TOKEN}/notes.md` });
    const cause = new Error(`upstream said: Authorization: Bearer ${OPENAI_KEY}`);
    const error = Object.assign(new Error(`cannot open workspace/${GITHUB_TOKEN}.txt`, { cause }), {
      code: 'EACCES',
      path: `/p/workspace/${GITHUB_TOKEN}.txt`,
    });
    log.write('ERROR', 'ingest.error', {
      declared_file: `config/${OPENAI_KEY}.env`,
      error,
      reasons: [{ reason: 'password=hunter2' }],
    });
    await log.close();

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(GITHUB_TOKEN);
    expect(text).not.toContain(OPENAI_KEY);
    expect(text).not.toContain('hunter2');
    const line = JSON.parse(text) as Record<string, unknown>;
    expect(line).toMatchObject({
      doc_path: 'docs/[REDACTED]/notes.md',
      declared_file: 'config/[REDACTED].env',
      error: {
        type: 'Error',
        message: 'cannot open workspace/[REDACTED].txt',
        code: 'EACCES',
        path: '/p/workspace/[REDACTED].txt',
        cause: { message: 'upstream said: Authorization: [REDACTED]' },
      },
      reasons: [{ reason: 'password=[REDACTED]' }],
    });
  });

  it('writes bytes as a count, never their contents', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    log.write('INFO', 'ingest.block', { bytes: Buffer.from('print("secret sauce")\n') });
    await log.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('sauce');
    expect(JSON.parse(text)).toMatchObject({ bytes: '[22 bytes]' });
  });
});

describe('openRunEventLog misuse and I/O errors', () => {
  const log = (): EventLog => memoryEventLog();

  it.each(['ts', 'level', 'event'])('refuses a field or binding named %s', (key) => {
    expect(() => {
      log().write('INFO', 'ingest.block', { [key]: 'x' });
    }).toThrow(TypeError);
    expect(() => log().child({ [key]: 'x' })).toThrow(TypeError);
  });

  it.each(['content', 'contents'])('refuses a field named %s: block contents are never logged', (key) => {
    expect(() => {
      log().write('INFO', 'ingest.block', { [key]: 'print(1)' });
    }).toThrow(/never logged/);
  });

  it('refuses a content field at compile time too', () => {
    const typed = memoryEventLog();
    expect(() => {
      // @ts-expect-error -- block contents have no place in an event
      typed.write('INFO', 'ingest.block', { content: 'print(1)' });
    }).toThrow();
    const fields: Readonly<Record<string, unknown>> = { index: 0 };
    typed.write('INFO', 'ingest.block', fields);
    expect(typed.lines).toHaveLength(1);
  });

  it.each(['', 'block', 'Ingest.block', 'ingest.', 'ingest block', '.block'])(
    'refuses the event name %j',
    (name) => {
      expect(() => {
        log().write('INFO', name);
      }).toThrow(TypeError);
    },
  );

  it('refuses an unknown level', () => {
    expect(() => {
      log().write('DEBUG' as EventLevel, 'ingest.block');
    }).toThrow(/INFO, WARNING or ERROR/);
  });

  it('throws EventLogError when the events file cannot be created', async () => {
    await mkdir(path.join(dir, '.agent'));
    await writeFile(path.join(dir, '.agent', 'runs'), 'not a directory');
    const thrown: unknown = await openRunEventLog(dir, 'r1').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(EventLogError);
    expect(thrown).toMatchObject({ syscall: 'open', path: eventsFile() });
    // The store refuses to write below a file: no system call failed, so the code is the store's.
    expect(thrown).toMatchObject({
      code: 'write_refused',
      message: expect.stringContaining('is a file where a folder should be') as string,
    });
  });
});

describe('openRunEventLog on a read-only filesystem', () => {
  it('throws EventLogError with the real cause (EROFS) when the parent folder cannot be made', async ({
    skip,
  }) => {
    const mount = mountReadOnly(dir);
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      await expect(openRunEventLog(dir, 'r1')).rejects.toThrow(
        expect.objectContaining({ name: 'EventLogError', code: 'EROFS', syscall: 'open' }) as Error,
      );
    } finally {
      mount.release();
    }
  });
});

describe('openRunEventLog when the disk is full', () => {
  it('never throws from write, drops later events and reports ENOSPC from close', async () => {
    const project = openProject(dir, { store: fullDiskStore(openProjectStore(dir)) });
    const log = await openRunEventLog(project, 'r1', { run_id: 'r1' });
    expect(() => {
      for (let seq = 0; seq < 3; seq += 1) log.write('INFO', 'test.full', { seq });
    }).not.toThrow();
    const closing = log.close();
    await expect(closing).rejects.toBeInstanceOf(EventLogError);
    await expect(closing).rejects.toMatchObject({
      code: 'ENOSPC',
      syscall: 'write',
      path: eventsFile(),
      message: expect.stringContaining('2 later event(s) were dropped') as string,
    });
    await project.store.close();
  });
});

describe('close', () => {
  it('has every event on disk once it resolves, and releases the descriptor', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    for (let seq = 0; seq < 500; seq += 1) log.write('INFO', 'test.flush', { seq });
    expect(await openDescriptorsOn(file)).toBe(1);
    await log.close();
    const lines = await readLines(file);
    expect(lines.map((line) => line['seq'])).toEqual(Array.from({ length: 500 }, (_, seq) => seq));
    expect(await openDescriptorsOn(file)).toBe(0);
  });
});

describe('memoryEventLog', () => {
  it('keeps the same line shape as a file, across children', async () => {
    const file = eventsFile();
    const disk = await openRunEventLog(dir, 'r1', { run_id: 'r1' });
    const memory = memoryEventLog({ run_id: 'r1' });
    for (const target of [disk, memory]) {
      target.child({ node_id: 'n1' }).write('WARNING', 'ingest.summary', { written: 0, reason: 'token=abc' });
    }
    await disk.close();
    await memory.close();
    const [fromDisk] = await readLines(file);
    expect(memory.lines).toHaveLength(1);
    const [fromMemory] = memory.lines;
    expect({ ...fromMemory, ts: 'x' }).toEqual({ ...fromDisk, ts: 'x' });
    expect(fromMemory).toMatchObject({ reason: 'token=[REDACTED]', node_id: 'n1' });
  });

  it('refuses writes after close like a file log', async () => {
    const memory = memoryEventLog();
    await memory.close();
    expect(() => {
      memory.write('INFO', 'ingest.summary');
    }).toThrow(/closed/);
  });
});

/** How many of this process's descriptors point at `file` (Linux /proc; -1 elsewhere). */
async function openDescriptorsOn(file: string): Promise<number> {
  if (process.platform !== 'linux') return -1;
  const entries = await readdir('/proc/self/fd');
  const targets = await Promise.all(
    entries.map((entry) => readlink(path.join('/proc/self/fd', entry)).catch(() => '')),
  );
  return targets.filter((target) => target === file).length;
}

describe('one line per event', () => {
  it('escapes newlines and line separators inside values so an event never spans two lines', async () => {
    const file = eventsFile();
    const log = await openRunEventLog(dir, 'r1');
    log.write('WARNING', 'ingest.block', { reason: 'first\nsecond\r\nthird\u2028fourth', 'odd\nkey': 1 });
    await log.close();
    const text = await readFile(file, 'utf8');
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text)).toMatchObject({ reason: 'first\nsecond\r\nthird\u2028fourth', 'odd\nkey': 1 });
  });
});
