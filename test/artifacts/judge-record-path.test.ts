import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import {
  judgeDocumentPath,
  judgeRecordPath,
  judgeTracePaths,
  showPath,
} from '../../src/artifacts/judge-record-path.js';
import type { TraceContent } from '../../src/artifacts/trace-content.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

const RUN = parseRunId('run-001');
const NODE = parseNodeId('build');

function record(
  type: ArtifactRecord['type'],
  path: string,
  source: ArtifactRecord['metadata']['source'] = type === 'trace' || type === 'message'
    ? 'runtime'
    : 'ingest',
  contract?: string,
): ArtifactRecord {
  return {
    artifactId: 'art-000000000000',
    runId: RUN,
    taskId: NODE,
    agentId: 'builder',
    type,
    path,
    contentHash: `sha256:${'0'.repeat(64)}`,
    createdAt: '2026-02-24T10:00:00.000Z',
    metadata: {
      bytes: 1,
      linesAdded: 0,
      linesRemoved: 0,
      source,
      ...(contract === undefined ? {} : { contract }),
    },
  };
}

describe('judgeRecordPath', () => {
  it.each([
    ['an ingested file', record('file', 'workspace/src/a.ts')],
    ['an ingested design', record('design', 'workspace/docs/arch.png')],
    ['a dotfile', record('file', 'workspace/.github/workflows/ci.yml')],
    ['a node document', record('message', 'docs/plan.md')],
    ['an audit document', record('message', 'audits/review_run-001.md')],
    ['a workflow step document', record('message', 'docs/run-001/draft-2.md')],
    ['a trace', record('trace', '.agent/runs/run-001/traces/build.json')],
    ['a registered file', record('file', 'src/notes.md', 'register')],
    ['a registered workspace file', record('file', 'workspace/a.ts', 'register')],
    [
      'a contract artifact',
      record('file', '.agent/artifacts/run-001/smoke_test_result.json', 'submit', 'smoke_test_result'),
    ],
  ])('accepts %s', (_name, candidate) => {
    expect(judgeRecordPath(candidate)).toBeUndefined();
  });

  it.each([
    [
      'a path out of workspace/ by ..',
      record('file', 'workspace/../../../../etc/hostname'),
      'workspace_file',
      /traversal/,
    ],
    ['an absolute path', record('file', '/etc/passwd'), 'workspace_file', /is not below workspace\//],
    ['a path into .git', record('file', 'workspace/.git/hooks/pre-commit'), 'workspace_file', /git_dir/],
    ['a NUL', record('file', 'workspace/a\u0000b'), 'workspace_file', /control_char/],
    ['a backslash', record('file', 'workspace/a\\b.ts'), 'workspace_file', /backslash/],
    ['a bidi control', record('file', 'workspace/a\u202eb.ts'), 'workspace_file', /invalid_unicode/],
    ['a path not in normal form', record('file', 'workspace/./a.ts'), 'workspace_file', /normal form/],
    ['workspace/ itself', record('file', 'workspace/'), 'workspace_file', /empty_path/],
    [
      'a document outside docs/ and audits/',
      record('message', 'workspace/plan.md'),
      'document',
      /under docs\/ or audits\//,
    ],
    ['a document out by ..', record('message', 'docs/../../etc/passwd'), 'document', /traversal/],
    ['docs/ itself', record('message', 'docs'), 'document', /under docs\/ or audits\//],
    ['a trace at another path', record('trace', '/etc/passwd'), 'trace_path', /traces\/build\.json/],
    [
      'a trace of another node',
      record('trace', '.agent/runs/run-001/traces/other.json'),
      'trace_path',
      /the path of its node's trace/,
    ],
    [
      'a registered file in .agent/',
      record('file', '.agent/index/paths/x.jsonl', 'register'),
      'registered_file',
      /inside \.agent\//,
    ],
    [
      'a registered file in .AGENT/',
      record('file', '.AGENT/x', 'register'),
      'registered_file',
      /inside \.agent\//,
    ],
    [
      'a registered absolute path',
      record('file', '/etc/passwd', 'register'),
      'registered_file',
      /absolute_path/,
    ],
    [
      'a contract artifact elsewhere',
      record('file', 'workspace/x.json', 'submit', 'smoke_test_result'),
      'contract_artifact',
      /smoke_test_result/,
    ],
    [
      'a contract artifact without its contract',
      record('file', '.agent/artifacts/run-001/x.json', 'submit'),
      'contract_artifact',
      /\(unnamed\)/,
    ],
  ])('refuses %s', (_name, candidate, rule, message) => {
    const refused = judgeRecordPath(candidate);
    expect(refused?.rule).toBe(rule);
    expect(refused?.path).toBe(candidate.path);
    expect(refused?.message).toMatch(message);
  });

  it('quotes a hostile path with its controls escaped, so it cannot reorder the message around it', () => {
    const refused = judgeRecordPath(record('file', 'workspace/a\u202eb\u0085c\u0000.ts'));
    expect(refused?.message).toContain('"workspace/a\\u202eb\\u0085c\\u0000.ts"');
    for (const hidden of ['\u202e', '\u0085', '\u0000']) expect(refused?.message).not.toContain(hidden);
    expect(showPath('docs/a.md')).toBe('"docs/a.md"');
  });
});

describe('judgeTracePaths', () => {
  const trace = (document?: string, manifest?: string): TraceContent => ({
    version: 1,
    runId: RUN,
    nodeId: NODE,
    agent: 'builder',
    graph: { name: 'g', hash: '0'.repeat(64) },
    promptSha256: null,
    attempt: 1,
    startedAt: '2026-02-24T10:00:00.000Z',
    finishedAt: '2026-02-24T10:00:01.000Z',
    durationMs: 1000,
    outcome: 'completed',
    ...(document === undefined ? {} : { document: { path: document, sha256: '0'.repeat(64), bytes: 1 } }),
    ...(manifest === undefined
      ? {}
      : {
          ingest: {
            total_blocks: 0,
            written: 0,
            skipped: 0,
            rejected: 0,
            manifest_path: manifest,
            problems: [],
          },
        }),
  });
  const owner = record('trace', '.agent/runs/run-001/traces/build.json');

  it.each([
    ['no document and no ingest', trace()],
    ['its document and its manifest', trace('docs/plan.md', '.agent/runs/run-001/manifests/build.json')],
    ['an ingest that wrote no manifest', trace('docs/plan.md', '')],
  ])('accepts %s', (_name, content) => {
    expect(judgeTracePaths(owner, content)).toBeUndefined();
  });

  it.each([
    ['a document outside docs/', trace('/etc/passwd'), 'document'],
    [
      'a manifest of another node',
      trace('docs/plan.md', '.agent/runs/run-001/manifests/other.json'),
      'manifest_path',
    ],
    ['a manifest outside the project', trace('docs/plan.md', '../../../etc/x.json'), 'manifest_path'],
  ])('refuses %s', (_name, content, rule) => {
    expect(judgeTracePaths(owner, content)?.rule).toBe(rule);
  });

  it('holds a document path to the rule of output_path', () => {
    expect(judgeDocumentPath('docs/a/b.md')).toBeUndefined();
    expect(judgeDocumentPath('docs/a:b.md')?.message).toMatch(/colon/);
  });
});
