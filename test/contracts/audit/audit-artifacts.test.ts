import { execFileSync } from 'node:child_process';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  rename,
  rm,
  symlink,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openArtifactRecorder } from '../../../src/artifacts/index.js';
import { auditArtifacts, submitArtifact } from '../../../src/contracts/index.js';
import type { AuditFinding } from '../../../src/contracts/index.js';
import { objectPath, parseNodeId, parseRunId, UnknownRunError } from '../../../src/project/index.js';
import { DEVELOPMENT_RESULT, commitMessage, contractProject } from '../../helpers/contract-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';
import { tempProject } from '../../helpers/temp-project.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project } from '../../../src/store/index.js';

const outside: string[] = [];
afterEach(async () => {
  await Promise.all(outside.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function outsideDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ai-outside-'));
  outside.push(dir);
  return dir;
}

/** Submits through the canonical path and returns the project-relative path and hash. */
async function submitted(
  projectDir: string,
  type: string,
  payload: unknown,
  runId = 'run-1',
): Promise<{ path: string; contentHash: string; artifactId: string }> {
  const outcome = await submitArtifact({
    projectDir,
    runId,
    taskId: 'dev',
    agentId: 'claude',
    type,
    payload,
    durability: 'none',
  });
  if (!outcome.ok) throw new Error(outcome.message);
  return { path: outcome.path, contentHash: outcome.contentHash, artifactId: outcome.artifactId ?? '' };
}

/** A project with one run and one clean canonical submission of each of two types. */
async function cleanProject(): Promise<string> {
  const projectDir = await contractProject();
  await submitted(projectDir, 'development_result', DEVELOPMENT_RESULT);
  await submitted(projectDir, 'commit_message', commitMessage('add audit'));
  return projectDir;
}

function codesOf(findings: readonly AuditFinding[]): string[] {
  return findings.map((finding) => `${finding.code} ${finding.path}`);
}

/** Records a version with source submit without going through submitArtifact (no file, no event). */
async function forgeSubmitRecord(projectDir: string, type: string, bytes: Uint8Array): Promise<string> {
  const recorder = await openArtifactRecorder(projectDir, { durability: 'none' });
  try {
    const [record] = await recorder.recordVersions([
      {
        runId: parseRunId('run-1'),
        taskId: parseNodeId('forger'),
        agentId: 'forger',
        kind: 'file',
        path: `.agent/artifacts/run-1/${type}.json`,
        bytes,
        language: 'json',
        source: 'submit',
        contract: type,
      },
    ]);
    return record?.contentHash ?? '';
  } finally {
    await recorder.close();
  }
}

describe('auditArtifacts: a clean project', () => {
  it('finds nothing in a run whose artifacts all came through submitArtifact', async () => {
    const projectDir = await cleanProject();
    const report = await auditArtifacts({ projectDir });
    expect(report).toEqual({ scope: {}, runs: ['run-1'], files: 2, records: 2, findings: [] });
  });

  it('finds nothing after a resubmission (the file is the latest version)', async () => {
    const projectDir = await cleanProject();
    await submitted(projectDir, 'commit_message', commitMessage('add audit, second try'));
    const report = await auditArtifacts({ projectDir, runId: 'run-1' });
    expect(report).toMatchObject({ scope: { runId: 'run-1' }, files: 2, records: 3, findings: [] });
  });

  it('finds nothing in a project without .agent/artifacts, and creates nothing', async () => {
    const projectDir = await contractProject();
    const before = await treeDigest(projectDir);
    const report = await auditArtifacts({ projectDir });
    expect(report).toEqual({ scope: {}, runs: ['run-1'], files: 0, records: 0, findings: [] });
    expect(await treeDigest(projectDir)).toBe(before);
  });
});

describe('auditArtifacts: non_canonical', () => {
  const forged = [
    {
      name: 'a forged file of a known type written straight into the run folder',
      plant: (dir: string) => writeFile(path.join(dir, 'issues.json'), '{"issues":[]}\n'),
      path: '.agent/artifacts/run-1/issues.json',
      message: /no submit record/,
    },
    {
      name: 'a file whose name is not <type>.json',
      plant: (dir: string) => writeFile(path.join(dir, 'notes.txt'), 'hello\n'),
      path: '.agent/artifacts/run-1/notes.txt',
      message: /not named <type>\.json/,
    },
    {
      name: 'a file named for an unknown type',
      plant: (dir: string) => writeFile(path.join(dir, 'dev_result.json'), '{}\n'),
      path: '.agent/artifacts/run-1/dev_result.json',
      message: /not named <type>\.json/,
    },
    {
      name: 'a folder inside a run folder',
      plant: (dir: string) => mkdir(path.join(dir, 'nested')),
      path: '.agent/artifacts/run-1/nested',
      message: /is a folder/,
    },
    {
      name: 'a FIFO named like an artifact (audit does not block on it)',
      plant: (dir: string) => {
        execFileSync('mkfifo', [path.join(dir, 'issues.json')]);
        return Promise.resolve();
      },
      path: '.agent/artifacts/run-1/issues.json',
      message: /special file/,
    },
  ];
  for (const { name, plant, path: where, message } of forged) {
    it(`flags ${name}`, async () => {
      const projectDir = await cleanProject();
      await plant(path.join(projectDir, '.agent', 'artifacts', 'run-1'));
      const report = await auditArtifacts({ projectDir });
      expect(codesOf(report.findings)).toEqual([`non_canonical ${where}`]);
      expect(report.findings[0]?.run_id).toBe('run-1');
      expect(report.findings[0]?.message).toMatch(message);
      expect(report.files).toBe(3);
    });
  }

  it('flags a symlink planted in the run folder and never follows it, even to the submitted bytes', async () => {
    const projectDir = await cleanProject();
    const elsewhere = await outsideDir();
    const real = path.join(projectDir, '.agent/artifacts/run-1/commit_message.json');
    // The link points at the very bytes that were submitted: only a followed link would pass as clean.
    await rename(real, path.join(elsewhere, 'commit_message.json'));
    await symlink(path.join(elsewhere, 'commit_message.json'), real);
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toEqual([
      {
        code: 'non_canonical',
        run_id: 'run-1',
        path: '.agent/artifacts/run-1/commit_message.json',
        message: expect.stringMatching(/is a symlink \(never followed\)/) as unknown,
      },
    ]);
  });

  it('flags a symlink to a FIFO in the run folder without blocking on it', async () => {
    const projectDir = await cleanProject();
    const elsewhere = await outsideDir();
    execFileSync('mkfifo', [path.join(elsewhere, 'pipe')]);
    await symlink(path.join(elsewhere, 'pipe'), path.join(projectDir, '.agent/artifacts/run-1/issues.json'));
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual(['non_canonical .agent/artifacts/run-1/issues.json']);
  });

  it('flags a symlink at .agent/artifacts/<run> and a symlink at .agent/artifacts itself', async () => {
    const projectDir = await contractProject(['run-1', 'run-2']);
    await submitted(projectDir, 'commit_message', commitMessage('in run two'), 'run-2');
    await symlink('run-2', path.join(projectDir, '.agent/artifacts/run-1'));
    const linkedRun = await auditArtifacts({ projectDir });
    expect(codesOf(linkedRun.findings)).toEqual(['non_canonical .agent/artifacts/run-1']);

    const elsewhere = await outsideDir();
    await rename(path.join(projectDir, '.agent/artifacts'), path.join(elsewhere, 'artifacts'));
    await symlink(path.join(elsewhere, 'artifacts'), path.join(projectDir, '.agent/artifacts'));
    const linkedRoot = await auditArtifacts({ projectDir });
    expect(linkedRoot.findings).toContainEqual(
      expect.objectContaining({ code: 'non_canonical', run_id: null, path: '.agent/artifacts' }),
    );
  });

  it('flags a folder for a run that does not exist and an entry that names no run', async () => {
    const projectDir = await cleanProject();
    await mkdir(path.join(projectDir, '.agent/artifacts/ghost'));
    await writeFile(path.join(projectDir, '.agent/artifacts/ghost/issues.json'), '{"issues":[]}\n');
    await writeFile(path.join(projectDir, '.agent/artifacts/README.md'), 'forged\n');
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toEqual([
      expect.objectContaining({ code: 'non_canonical', run_id: null, path: '.agent/artifacts/README.md' }),
      expect.objectContaining({ code: 'non_canonical', run_id: 'ghost', path: '.agent/artifacts/ghost' }),
    ]);
    expect(report.findings[1]?.message).toMatch(/run that does not exist/);
    // Asked about the ghost run alone, audit still reports its folder rather than "unknown run".
    const scoped = await auditArtifacts({ projectDir, runId: 'ghost' });
    expect(codesOf(scoped.findings)).toEqual(['non_canonical .agent/artifacts/ghost']);
  });

  it('flags a file with a forged submit record but no artifact.submitted event', async () => {
    const projectDir = await cleanProject();
    const bytes = new TextEncoder().encode('{\n  "issues": []\n}\n');
    await forgeSubmitRecord(projectDir, 'issues', bytes);
    await writeFile(path.join(projectDir, '.agent/artifacts/run-1/issues.json'), bytes);
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: 'non_canonical',
        type: 'issues',
        path: '.agent/artifacts/run-1/issues.json',
        message: expect.stringMatching(/no artifact\.submitted event/) as unknown,
      }),
    ]);
  });
});

describe('auditArtifacts: modified', () => {
  it('flags a file edited after submission', async () => {
    const projectDir = await cleanProject();
    const file = path.join(projectDir, '.agent/artifacts/run-1/development_result.json');
    await writeFile(file, `${JSON.stringify({ ...DEVELOPMENT_RESULT, outcome: 'failed' }, null, 2)}\n`);
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: 'modified',
        run_id: 'run-1',
        type: 'development_result',
        path: '.agent/artifacts/run-1/development_result.json',
        message: expect.stringMatching(/changed after its latest submission/) as unknown,
      }),
    ]);
  });

  it('flags a file put back to an older submission by hand', async () => {
    const projectDir = await contractProject();
    const first = await submitted(projectDir, 'commit_message', commitMessage('first'));
    await submitted(projectDir, 'commit_message', commitMessage('second'));
    await writeFile(
      path.join(projectDir, first.path),
      `${JSON.stringify(commitMessage('first'), null, 2)}\n`,
    );
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual([`modified ${first.path}`]);
    expect(report.findings[0]?.message).toContain(`older submission ${first.artifactId}`);
  });

  it('flags a submitted file that was deleted', async () => {
    const projectDir = await cleanProject();
    await unlink(path.join(projectDir, '.agent/artifacts/run-1/commit_message.json'));
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual(['modified .agent/artifacts/run-1/commit_message.json']);
    expect(report.findings[0]?.message).toMatch(/deleted after its submission/);
  });

  it('flags every submitted file when .agent/artifacts was removed', async () => {
    const projectDir = await cleanProject();
    await rm(path.join(projectDir, '.agent/artifacts'), { recursive: true });
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual([
      'modified .agent/artifacts/run-1/commit_message.json',
      'modified .agent/artifacts/run-1/development_result.json',
    ]);
  });

  it('flags a submitted file replaced by a huge one, hashing it as a stream', async () => {
    const projectDir = await cleanProject();
    // A sparse 64 MiB file: read whole it would cost 64 MiB of memory; streamed it costs a buffer.
    await truncate(path.join(projectDir, '.agent/artifacts/run-1/commit_message.json'), 64 * 1024 * 1024);
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual(['modified .agent/artifacts/run-1/commit_message.json']);
  });
});

describe('auditArtifacts: invalid', () => {
  it('flags a record whose object was rewritten in place to an invalid payload (corrupt)', async () => {
    const projectDir = await cleanProject();
    const { contentHash } = await submitted(projectDir, 'issues', { issues: [] });
    const object = path.join(projectDir, objectPath(contentHash.slice('sha256:'.length)));
    await chmod(object, 0o644);
    await writeFile(object, '{ "issues": [{ "id": "1" }] }\n');
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: 'invalid',
        type: 'issues',
        path: '.agent/artifacts/run-1/issues.json',
        message: expect.stringMatching(/is corrupt/) as unknown,
      }),
    ]);
  });

  it('flags a record whose object is missing', async () => {
    const projectDir = await cleanProject();
    const { contentHash } = await submitted(projectDir, 'issues', { issues: [] });
    await rm(path.join(projectDir, objectPath(contentHash.slice('sha256:'.length))), { force: true });
    const report = await auditArtifacts({ projectDir });
    expect(codesOf(report.findings)).toEqual(['invalid .agent/artifacts/run-1/issues.json']);
    expect(report.findings[0]?.message).toMatch(/missing/);
  });

  it('flags a record whose stored payload no longer validates, naming the field', async () => {
    const projectDir = await cleanProject();
    // A payload stored under its true hash that today's schema refuses (as if the schema had tightened).
    const bytes = new TextEncoder().encode(
      `${JSON.stringify({ type: 'feat', subject: 'ends with a period.', breaking: false }, null, 2)}\n`,
    );
    await forgeSubmitRecord(projectDir, 'commit_message', bytes);
    const report = await auditArtifacts({ projectDir });
    const invalid = report.findings.filter((finding) => finding.code === 'invalid');
    expect(invalid).toEqual([
      expect.objectContaining({
        run_id: 'run-1',
        type: 'commit_message',
        message: expect.stringMatching(/no longer validates as commit_message: subject: expected/) as unknown,
      }),
    ]);
    // The file on disk no longer matches the latest (forged) record either.
    expect(codesOf(report.findings)).toContain('modified .agent/artifacts/run-1/commit_message.json');
  });
});

describe('auditArtifacts: scope and safety', () => {
  it('audits one run when asked, and every run otherwise', async () => {
    const projectDir = await contractProject(['run-1', 'run-2']);
    await submitted(projectDir, 'issues', { issues: [] }, 'run-1');
    await submitted(projectDir, 'issues', { issues: [] }, 'run-2');
    await writeFile(path.join(projectDir, '.agent/artifacts/run-2/notes.txt'), 'x');
    expect((await auditArtifacts({ projectDir, runId: 'run-1' })).findings).toEqual([]);
    expect(codesOf((await auditArtifacts({ projectDir })).findings)).toEqual([
      'non_canonical .agent/artifacts/run-2/notes.txt',
    ]);
    expect((await auditArtifacts({ projectDir })).runs).toEqual(['run-1', 'run-2']);
  });

  it('throws UnknownRunError for a run the project does not have', async () => {
    const projectDir = await cleanProject();
    await expect(auditArtifacts({ projectDir, runId: 'run-9' })).rejects.toBeInstanceOf(UnknownRunError);
  });

  it('writes nothing, findings or not', async () => {
    const projectDir = await cleanProject();
    await writeFile(path.join(projectDir, '.agent/artifacts/run-1/issues.json'), '{}');
    await writeFile(path.join(projectDir, '.agent/artifacts/run-1/commit_message.json'), '{}');
    const before = await treeDigest(projectDir);
    const report = await auditArtifacts({ projectDir });
    expect(report.findings).toHaveLength(2);
    expect(await treeDigest(projectDir)).toBe(before);
  });
});

describe('auditArtifacts on a memory store', () => {
  const RUN_ARTIFACT = '.agent/artifacts/run-1/commit_message.json';

  /**
   * A project whose runs are kept in memory, with one submission of a commit message as submitArtifact leaves it:
   * the record, the object, the file and its artifact.submitted event.
   */
  async function memoryProject(): Promise<{ project: Project; contentHash: string; bytes: Uint8Array }> {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    const bytes = new TextEncoder().encode(`${JSON.stringify(commitMessage('kept in memory'), null, 2)}\n`);
    const recorder = await openArtifactRecorder(project, { durability: 'none' });
    const [record] = await recorder
      .recordVersions([
        {
          runId: parseRunId('run-1'),
          taskId: parseNodeId('dev'),
          agentId: 'claude',
          kind: 'file',
          path: RUN_ARTIFACT,
          bytes,
          language: 'json',
          source: 'submit',
          contract: 'commit_message',
        },
      ])
      .finally(() => recorder.close());
    const contentHash = record?.contentHash ?? '';
    await project.store.replace(RUN_ARTIFACT, bytes);
    await project.store.append(
      '.agent/runs/run-1/events.jsonl',
      `${JSON.stringify({ event: 'artifact.submitted', path: RUN_ARTIFACT, hash: contentHash })}\n`,
    );
    return { project, contentHash, bytes };
  }

  it('finds nothing in a clean submission, and reads nothing from the disk', async () => {
    const { project } = await memoryProject();
    expect(await auditArtifacts({ projectDir: project })).toEqual({
      scope: {},
      runs: ['run-1'],
      files: 1,
      records: 1,
      findings: [],
    });
    expect(await readdir(project.dir)).toEqual([]);
  });

  it('judges the stored payload through the objects: corrupt, missing, invalid, and too large to read', async () => {
    const { project, contentHash } = await memoryProject();
    const key = objectPath(contentHash.slice('sha256:'.length));
    const invalidOf = async (): Promise<string[]> =>
      (await auditArtifacts({ projectDir: project })).findings
        .filter((finding) => finding.code === 'invalid')
        .map((finding) => finding.message);

    await project.store.replace(key, '{ "type": "feat" }\n');
    expect(await invalidOf()).toEqual([expect.stringMatching(/is corrupt/)]);
    await project.store.replace(key, Buffer.alloc(8 * 1024 * 1024 + 1, 0x20));
    expect(await invalidOf()).toEqual([
      expect.stringMatching(/holds 8388609 bytes, more than any submitted payload; it was not read/),
    ]);
    // Its only object gone, the memory store holds no objects at all (a folder exists while a file below it does).
    await project.store.remove(key);
    expect(await invalidOf()).toEqual([expect.stringMatching(/is missing: the project has no object store/)]);
    const others = await project.store.openObjects();
    await others.put(new TextEncoder().encode('another content\n'));
    await others.close();
    expect(await invalidOf()).toEqual([expect.stringMatching(/is missing from the object store/)]);

    // A payload stored under its true hash that today's schema refuses.
    const forged = new TextEncoder().encode(
      '{ "type": "feat", "subject": "ends with a period.", "breaking": false }\n',
    );
    const objects = await project.store.openObjects();
    const { hash } = await objects.put(forged);
    await objects.close();
    const recorder = await openArtifactRecorder(project, { durability: 'none' });
    await recorder.recordVersions([
      {
        runId: parseRunId('run-1'),
        taskId: parseNodeId('forger'),
        agentId: 'forger',
        kind: 'file',
        path: RUN_ARTIFACT,
        bytes: forged,
        language: 'json',
        source: 'submit',
        contract: 'commit_message',
      },
    ]);
    await recorder.close();
    const report = await auditArtifacts({ projectDir: project });
    expect(report.findings.map((finding) => `${finding.code} ${finding.message.slice(0, 40)}`)).toEqual([
      expect.stringMatching(/^invalid record .*/),
      expect.stringMatching(/^invalid record .*/),
      expect.stringMatching(/^modified /),
    ]);
    expect(
      report.findings.some((finding) => finding.message.includes('no longer validates as commit_message')),
    ).toBe(true);
    expect(hash).not.toBe(contentHash);
  });

  it("flags a file in the store's artifacts folder that no submission wrote", async () => {
    const { project } = await memoryProject();
    await project.store.replace('.agent/artifacts/run-1/issues.json', '{"issues":[]}\n');
    const report = await auditArtifacts({ projectDir: project });
    expect(codesOf(report.findings)).toEqual(['non_canonical .agent/artifacts/run-1/issues.json']);
  });
});
