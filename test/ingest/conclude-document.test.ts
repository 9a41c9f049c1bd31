import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openIngestRecords, readArtifactRecords } from '../../src/artifacts/index.js';
import { memoryEventLog } from '../../src/events/index.js';
import { concludeDocument, ingestManifestSchema } from '../../src/ingest/index.js';
import type { ConcludeDocumentOptions, DocumentRecords } from '../../src/ingest/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { openConfinedRoot } from '../../src/workspace/index.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

const runId = parseRunId('wf-1');
const nodeId = parseNodeId('scope');

async function conclude(
  projectDir: string,
  overrides: Partial<ConcludeDocumentOptions> & { readonly enabled?: boolean } = {},
) {
  const root = await openConfinedRoot(projectDir);
  const events = memoryEventLog();
  // The artifacts' recorder must satisfy the ingest's port as it is (structural typing, no adapter).
  const records: DocumentRecords & { close(): Promise<void> } = openIngestRecords({
    projectDir,
    runId,
    durability: 'none',
    onFailure: () => undefined,
  });
  try {
    const outcome = await concludeDocument({
      project: projectDir,
      root,
      runId,
      nodeId,
      agentId: 'workflow',
      docPath: 'docs/wf-1/scope.md',
      text: `Scope\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 1;')}`,
      records,
      events,
      subject: 'step',
      ingest: {
        enabled: overrides.enabled ?? true,
        sourceKind: 'workflow',
        mode: 'single',
        durability: 'none',
      },
      ...overrides,
    });
    return { outcome, events: events.lines };
  } finally {
    await records.close();
    await root.close();
  }
}

describe('concludeDocument', () => {
  it('writes the document, records it as a message, ingests it and records the placed file', async () => {
    const projectDir = await tempProject();
    const { outcome } = await conclude(projectDir);
    expect(outcome).toMatchObject({
      status: 'completed',
      outputPath: 'docs/wf-1/scope.md',
      ingest: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
    });
    expect(await readFile(path.join(projectDir, 'workspace/src/x.ts'), 'utf8')).toBe('export const x = 1;\n');
    const manifest = ingestManifestSchema.parse(
      JSON.parse(await readFile(path.join(projectDir, '.agent/runs/wf-1/manifests/scope.json'), 'utf8')),
    );
    expect(manifest.source).toEqual({ kind: 'workflow', mode: 'single', doc_path: 'docs/wf-1/scope.md' });
    const { records } = await readArtifactRecords(projectDir, runId);
    expect(records.map((record) => [record.type, record.path, record.metadata.source])).toEqual([
      ['message', 'docs/wf-1/scope.md', 'runtime'],
      ['file', 'workspace/src/x.ts', 'ingest'],
    ]);
  });

  it('with the flag off writes and records the document only', async () => {
    const projectDir = await tempProject();
    const { outcome } = await conclude(projectDir, { enabled: false });
    expect(outcome.status).toBe('completed');
    expect(outcome).not.toHaveProperty('ingest');
    await expect(readFile(path.join(projectDir, 'workspace/src/x.ts'))).rejects.toThrow(/ENOENT/);
    const { records } = await readArtifactRecords(projectDir, runId);
    expect(records.map((record) => record.type)).toEqual(['message']);
  });

  it('does not ingest a document under audits/ and says so in a <subject>.ingest_skipped event', async () => {
    const projectDir = await tempProject();
    const { outcome, events } = await conclude(projectDir, { docPath: 'audits/scope.md' });
    expect(outcome).not.toHaveProperty('ingest');
    expect(events.map((line) => line.event)).toEqual(['step.ingest_skipped']);
  });

  it('reports a document the confined writer refuses as output_refused and records nothing', async () => {
    const projectDir = await tempProject({ 'elsewhere/.keep': '' });
    await symlink(path.join(projectDir, 'elsewhere'), path.join(projectDir, 'docs'));
    const { outcome } = await conclude(projectDir);
    expect(outcome).toMatchObject({ status: 'failed', code: 'output_refused' });
    expect((await readArtifactRecords(projectDir, runId)).records).toEqual([]);
  });

  it("returns the caller's text as it is when every character encodes", async () => {
    const projectDir = await tempProject();
    const text = `Scope é ✓ 😀\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 1;')}`;
    const { outcome } = await conclude(projectDir, { text });
    expect(outcome.status === 'completed' && outcome.text).toBe(text);
  });

  it('returns the text the disk holds, U+FFFD for a lone surrogate, and ingests that text', async () => {
    const projectDir = await tempProject();
    const text = `Scope \ud800\n\n${fileBlock('ts', 'src/\udc00.ts', 'x')}`;
    const { outcome } = await conclude(projectDir, { text });
    const onDisk = await readFile(path.join(projectDir, 'docs/wf-1/scope.md'), 'utf8');
    expect(onDisk).toContain('Scope \ufffd\n');
    expect(outcome.status === 'completed' && outcome.text).toBe(onDisk);
    const manifest = ingestManifestSchema.parse(
      JSON.parse(await readFile(path.join(projectDir, '.agent/runs/wf-1/manifests/scope.json'), 'utf8')),
    );
    expect(manifest.artifacts.map((entry) => [entry.declared_file, entry.reason.split(':')[0]])).toEqual([
      ['src/\ufffd.ts', 'invalid_unicode'],
    ]);
  });

  it('uses any recorder that fits the port', async () => {
    const projectDir = await tempProject();
    const calls: string[] = [];
    const records: DocumentRecords = {
      recordDocument: (document) => {
        calls.push(`document ${document.outputPath} changed=${String(document.changed)}`);
        return Promise.resolve();
      },
      recordIngested: (_node, _agent, contents) => {
        calls.push(`ingested ${contents.map((content) => content.workspacePath).join(',')}`);
        return Promise.resolve();
      },
    };
    await conclude(projectDir, { records });
    await conclude(projectDir, { records });
    expect(calls).toEqual([
      'document docs/wf-1/scope.md changed=true',
      'ingested workspace/src/x.ts',
      'document docs/wf-1/scope.md changed=false',
      'ingested workspace/src/x.ts',
    ]);
  });
});
