import { spawnSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import {
  indexFileOf,
  listIndexFiles,
  readPathVersions,
} from '../../../src/artifacts/store/artifact-index.js';
import { openObjectStore } from '../../../src/store/object-store.js';
import { countLineChanges } from '../../../src/artifacts/record/count-line-changes.js';
import { openArtifactRecorder, versionsOfIngested } from '../../../src/artifacts/record/record-artifacts.js';
import type { ArtifactVersionInput } from '../../../src/artifacts/record/record-artifacts.js';
import { traceContentSchema, tracePathOf } from '../../../src/artifacts/trace-content.js';
import { recordedFiles, recordScenario, traceOf } from '../../helpers/recording-scenario.js';
import { tempProject } from '../../helpers/temp-project.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import type { RunId } from '../../../src/project/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** A clock that ticks one second per call, so every record has its own time. */
function tickingClock(start = '2026-03-01T10:00:00.000Z'): () => Date {
  let tick = 0;
  return () => new Date(Date.parse(start) + 1000 * tick++);
}

function version(overrides: Partial<ArtifactVersionInput> & { bytes: Uint8Array }): ArtifactVersionInput {
  return {
    runId: parseRunId('run-001'),
    taskId: parseNodeId('build'),
    agentId: 'builder-01',
    kind: 'file',
    path: 'workspace/src/a.ts',
    source: 'ingest',
    ...overrides,
  };
}

async function recorderFor(project: string) {
  return openArtifactRecorder(project, { now: tickingClock(), durability: 'none' });
}

describe('openArtifactRecorder', () => {
  it('links a version to the previous version of the same path in an earlier run, with line counts against it', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const [first] = await recorder.recordVersions([version({ bytes: text('a\nb\nc\n') })]);
    const [second] = await recorder.recordVersions([
      version({ runId: parseRunId('run-002'), taskId: parseNodeId('fix'), bytes: text('a\nB\nc\nd\n') }),
    ]);
    await recorder.close();
    expect(first?.metadata).toMatchObject({ linesAdded: 3, linesRemoved: 0, bytes: 6 });
    expect(first?.metadata.previous).toBeUndefined();
    expect(second).toMatchObject({
      runId: parseRunId('run-002'),
      taskId: parseNodeId('fix'),
      metadata: { previous: first?.artifactId, linesAdded: 2, linesRemoved: 1, bytes: 8 },
    });
    expect((await readArtifactRecords(project, 'run-002')).records).toEqual([second]);
  });

  it('records lineCount multiset when a large rewrite is counted by the fallback, and no lineCount after a diff', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const lines = (tag: string): string =>
      Array.from({ length: 20_000 }, (_, i) => `${tag} ${String(i)}\n`).join('');
    const [first] = await recorder.recordVersions([version({ bytes: text(lines('old')) })]);
    const [second] = await recorder.recordVersions([
      version({ runId: parseRunId('run-002'), bytes: text(lines('new')) }),
    ]);
    await recorder.close();
    expect(first?.metadata).toMatchObject({ linesAdded: 20_000, linesRemoved: 0 });
    expect(first?.metadata.lineCount).toBeUndefined();
    expect(second?.metadata).toMatchObject({
      linesAdded: 20_000,
      linesRemoved: 20_000,
      lineCount: 'multiset',
    });
    // The record as read back from artifacts.jsonl validates with the field.
    expect((await readArtifactRecords(project, 'run-002')).records).toEqual([second]);
  });

  it('records the same content at the same place once', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const first = await recorder.recordVersions([version({ bytes: text('x\n') })]);
    const again = await recorder.recordVersions([version({ bytes: text('x\n') })]);
    await recorder.close();
    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
    expect((await readArtifactRecords(project, 'run-001')).records).toEqual(first);
    expect((await readPathVersions(project, 'workspace/src/a.ts')).records).toEqual(first);
  });

  it('records a return to earlier content as a new version linked to the one before it', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const records = [
      ...(await recorder.recordVersions([version({ bytes: text('one\n') })])),
      ...(await recorder.recordVersions([version({ bytes: text('two\n') })])),
      ...(await recorder.recordVersions([version({ bytes: text('one\n') })])),
    ];
    await recorder.close();
    expect(records).toHaveLength(3);
    expect(records[2]?.metadata.previous).toBe(records[1]?.artifactId);
    expect(records[2]?.metadata).toMatchObject({ linesAdded: 1, linesRemoved: 1 });
  });

  it.each([
    ['no earlier version', [], 'same\n', 1],
    ['the last version holds the same bytes (another run)', ['same\n'], 'same\n', 0],
    ['the last version holds other bytes', ['other\n'], 'same\n', 1],
    ['an older version holds the same bytes, the last one other bytes', ['same\n', 'other\n'], 'same\n', 1],
  ])('with changed: false and %s, records %i version(s)', async (_, earlier, bytes, expected) => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    for (const content of earlier) await recorder.recordVersions([version({ bytes: text(content) })]);
    const recorded = await recorder.recordVersions([
      version({ runId: parseRunId('run-002'), bytes: text(bytes), changed: false }),
    ]);
    await recorder.close();
    expect(recorded).toHaveLength(expected);
  });

  it('records the same bytes from another run as a new version of 0 changed lines when changed is not false', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const [first] = await recorder.recordVersions([version({ bytes: text('same\n') })]);
    const [second] = await recorder.recordVersions([
      version({ runId: parseRunId('run-002'), bytes: text('same\n') }),
    ]);
    await recorder.close();
    expect(second?.artifactId).not.toBe(first?.artifactId);
    expect(second?.metadata).toMatchObject({ previous: first?.artifactId, linesAdded: 0, linesRemoved: 0 });
  });

  it.each([
    ['workspace/img/logo.png', 'file', 'design', undefined],
    ['workspace/img/logo.SVG', 'file', 'design', 'svg'],
    ['workspace/docs/flow.mmd', 'file', 'design', 'mermaid'],
    ['workspace/docs/arch.drawio', 'file', 'design', 'xml'],
    ['workspace/src/a.ts', 'file', 'file', 'typescript'],
    ['workspace/Makefile', 'file', 'file', undefined],
    ['docs/plan.md', 'message', 'message', 'markdown'],
    ['docs/diagram.png', 'message', 'message', undefined],
  ] as const)('records %s (kind %s) as type %s with language %s', async (path, kind, type, language) => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const [record] = await recorder.recordVersions([version({ path, kind, bytes: text('content\n') })]);
    await recorder.close();
    expect(record?.type).toBe(type);
    expect(record?.metadata.language).toBe(language);
  });

  it.each([
    ['the fence lang when given', 'tsx', 'workspace/src/a.ts', 'tsx'],
    ['the extension when the lang is empty', '', 'workspace/src/a.py', 'python'],
    ['the extension when the lang is absent', undefined, 'workspace/src/a.rs', 'rust'],
    ['nothing when neither names a language', undefined, 'workspace/LICENSE', undefined],
  ])('takes the language from %s', async (_, language, path, expected) => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const input = version({ path, bytes: text('x\n'), ...(language === undefined ? {} : { language }) });
    const [record] = await recorder.recordVersions([input]);
    await recorder.close();
    expect(record?.metadata.language).toBe(expected);
  });

  it('counts no lines for binary content, and counts a text version after a binary one against nothing', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const path = 'workspace/img/logo.png';
    const [binary] = await recorder.recordVersions([
      version({ path, bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x0a, 0x00]) }),
    ]);
    const [textual] = await recorder.recordVersions([version({ path, bytes: text('a\nb\n') })]);
    await recorder.close();
    expect(binary?.metadata).toMatchObject({ bytes: 8, linesAdded: 0, linesRemoved: 0 });
    expect(textual?.metadata).toMatchObject({ previous: binary?.artifactId, linesAdded: 2, linesRemoved: 0 });
  });

  it.each([
    ['a BOM alone', '\uFEFF', 0],
    ['a BOM and a line', '\uFEFFa\n', 1],
    ['CRLF lines, the last without a newline', 'a\r\nb', 2],
    ['two empty lines', '\n\n', 2],
    ['nothing', '', 0],
    ['non-ASCII text', 'é\n✓\n😀', 3],
  ])(
    'counts the lines of a first version from its bytes as countLineChanges does: %s',
    async (_name, value, lines) => {
      const project = await tempProject();
      const recorder = await recorderFor(project);
      const [record] = await recorder.recordVersions([version({ bytes: text(value) })]);
      await recorder.close();
      expect(record?.metadata).toMatchObject({ linesAdded: lines, linesRemoved: 0 });
      expect(countLineChanges(null, value.replace(/^\uFEFF/, '')).linesAdded).toBe(lines);
    },
  );

  it('records a 16 MiB first version without decoding it, in a child whose heap is capped at 16 MiB', () => {
    const built = new URL('../../../dist/artifacts/index.js', import.meta.url).href;
    const script = [
      `const { openArtifactRecorder } = await import(${JSON.stringify(built)});`,
      'const recorder = await openArtifactRecorder(process.argv[1], { durability: "none" });',
      "const bytes = Buffer.alloc(16 * 1024 * 1024, 'a\\n');",
      "const [record] = await recorder.recordVersions([{ runId: 'r', taskId: 'n', agentId: 'a', kind: 'message', path: 'docs/n.md', bytes, source: 'runtime' }]);",
      'await recorder.close();',
      'console.log(record.metadata.linesAdded);',
    ].join('\n');
    return tempProject().then((project) => {
      const child = spawnSync(
        process.execPath,
        ['--max-old-space-size=16', '--input-type=module', '-e', script, project],
        { encoding: 'utf8' },
      );
      expect(child.stderr).toBe('');
      expect(child.stdout).toBe('8388608\n');
    });
  }, 60_000);

  it('stores the content of every version in the object store', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const [record] = await recorder.recordVersions([version({ bytes: text('stored\n') })]);
    await recorder.close();
    const store = await openObjectStore(project);
    expect(new TextDecoder().decode(await store.get(record!.contentHash))).toBe('stored\n');
    await store.close();
  });

  it('appends a trace to the run but not to the path index, with its content in the object store', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const trace = await recorder.recordTrace({
      runId: parseRunId('run-001'),
      taskId: parseNodeId('build'),
      agentId: 'builder-01',
      trace: traceOf('run-001', 'build', 'single'),
    });
    await recorder.close();
    expect(trace).toMatchObject({
      type: 'trace',
      path: tracePathOf(parseRunId('run-001'), parseNodeId('build')),
      metadata: { language: 'json', linesAdded: 0, linesRemoved: 0, source: 'runtime' },
    });
    expect(trace.metadata.previous).toBeUndefined();
    expect((await readArtifactRecords(project, 'run-001')).records).toEqual([trace]);
    expect(await listIndexFiles(project)).toEqual([]);
    const store = await openObjectStore(project);
    const content: unknown = JSON.parse(new TextDecoder().decode(await store.get(trace.contentHash)));
    await store.close();
    expect(traceContentSchema.parse(content)).toEqual(traceOf('run-001', 'build', 'single'));
  });

  it('refuses a trace whose content does not match the trace schema', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const bad = { ...traceOf('run-001', 'build', 'single'), attempt: 0 };
    await expect(
      recorder.recordTrace({
        runId: parseRunId('run-001'),
        taskId: parseNodeId('build'),
        agentId: 'b',
        trace: bad,
      }),
    ).rejects.toThrow();
    await recorder.close();
    expect((await readArtifactRecords(project, 'run-001')).records).toEqual([]);
  });

  it('runs concurrent calls on one recorder one at a time, so the versions form one chain in call order', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    const calls = Array.from({ length: 12 }, (_, index) =>
      recorder.recordVersions([
        version({ taskId: parseNodeId(`node-${index}`), bytes: text(`version ${index}\n`) }),
      ]),
    );
    const records = (await Promise.all(calls)).flat();
    await recorder.close();
    expect(records.map((record) => record.taskId)).toEqual(calls.map((_, index) => `node-${index}`));
    records.forEach((record, index) => {
      expect(record.metadata.previous).toBe(index === 0 ? undefined : records[index - 1]?.artifactId);
    });
    const lines = (await readFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), 'utf8')).split('\n');
    expect(lines).toHaveLength(13);
  });

  it('keeps recording after a failed call', async () => {
    const project = await tempProject();
    const recorder = await recorderFor(project);
    await expect(
      // Deliberately not a RunId: the recorder's own check is under test.
      recorder.recordVersions([version({ runId: '../../escape' as RunId, bytes: text('x\n') })]),
    ).rejects.toThrow(/run id/);
    const recorded = await recorder.recordVersions([version({ bytes: text('x\n') })]);
    await recorder.close();
    expect(recorded).toHaveLength(1);
  });

  it('refuses a FIFO planted as a path index file with an error, and the process keeps running', async () => {
    // The recorder's file calls run on the calling thread (D81): a blocking open of a FIFO would stop everything.
    const project = await tempProject();
    const planted = join(project, indexFileOf('workspace/src/a.ts'));
    await mkdir(dirname(planted), { recursive: true });
    expect(spawnSync('mkfifo', [planted]).status).toBe(0);
    const recorder = await recorderFor(project);
    try {
      await expect(recorder.recordVersions([version({ bytes: text('x\n') })])).rejects.toThrow(
        /is a FIFO, socket or device/,
      );
      // Another path still records.
      const recorded = await recorder.recordVersions([
        version({ path: 'workspace/src/b.ts', bytes: text('y\n') }),
      ]);
      expect(recorded).toHaveLength(1);
    } finally {
      await recorder.close();
    }
  });
});

describe('versionsOfIngested', () => {
  it('turns the files an ingest placed into file versions, skipped (unchanged) ones with changed: false', () => {
    const bytes = new TextEncoder().encode('x\n');
    const versions = versionsOfIngested(
      [
        { workspacePath: 'workspace/a.ts', lang: 'ts', bytes, status: 'written' },
        { workspacePath: 'workspace/b.ts', lang: '', bytes, status: 'skipped' },
      ],
      { runId: parseRunId('run-1'), taskId: parseNodeId('build'), agentId: 'cli' },
    );
    expect(versions).toEqual([
      {
        runId: parseRunId('run-1'),
        taskId: parseNodeId('build'),
        agentId: 'cli',
        kind: 'file',
        path: 'workspace/a.ts',
        bytes,
        language: 'ts',
        source: 'ingest',
        changed: true,
      },
      {
        runId: parseRunId('run-1'),
        taskId: parseNodeId('build'),
        agentId: 'cli',
        kind: 'file',
        path: 'workspace/b.ts',
        bytes,
        language: '',
        source: 'ingest',
        changed: false,
      },
    ]);
  });
});

describe('openArtifactRecorder: the files it writes', () => {
  it.each(['none', 'fsync'] as const)(
    'writes byte for byte the golden records, index files and objects of the scenario (durability %s)',
    async (durability) => {
      const project = await tempProject();
      await recordScenario(project, durability);
      const expected = JSON.parse(
        await readFile(
          new URL('../../../fixtures/artifacts/recording/expected.json', import.meta.url),
          'utf8',
        ),
      ) as unknown;
      expect(await recordedFiles(project)).toEqual(expected);
    },
  );
});
