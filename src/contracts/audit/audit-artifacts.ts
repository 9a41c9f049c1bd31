import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { listRecordedRuns, openObjectStore, readArtifactRecords } from '../../artifacts/index.js';
import type { ArtifactRecord, ObjectStore } from '../../artifacts/index.js';
import {
  CONTRACT_ARTIFACTS_DIR,
  OBJECTS_DIR,
  contractArtifactPath,
  isRunId,
  parseRunId,
  runDir,
  UnknownRunError,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { lstatOrMissing } from '../../workspace/index.js';
import { isContractType } from '../types/index.js';
import type { ContractType } from '../types/index.js';
import { hashArtifactFile } from './hash-artifact-file.js';
import { readSubmittedEvents } from './read-submitted-events.js';
import type { SubmittedEvents } from './read-submitted-events.js';
import { judgeStoredPayload } from './judge-stored-payload.js';

/** What audit flags (spec contracts.md, "Audit"). */
export type AuditFindingCode = 'non_canonical' | 'modified' | 'invalid';

/** One thing under `.agent/artifacts/` (or one submit record) that is not what the canonical path left. */
export interface AuditFinding {
  readonly code: AuditFindingCode;
  /** The run the path or record belongs to; null for an entry of `.agent/artifacts/` that names no run. */
  readonly run_id: string | null;
  /** Project-relative path of the file (or of the record's artifact). */
  readonly path: string;
  readonly type?: ContractType;
  readonly message: string;
}

/** What {@link auditArtifacts} checked and found. */
export interface AuditReport {
  readonly scope: { readonly runId?: RunId };
  /** The runs audited: those with a folder in `.agent/artifacts/` or a submit record, sorted. */
  readonly runs: readonly string[];
  /** Entries under `.agent/artifacts/` judged (files, folders, links). */
  readonly files: number;
  /** Submit records whose stored payload was re-validated. */
  readonly records: number;
  readonly findings: readonly AuditFinding[];
}

/** Options of {@link auditArtifacts}. */
export interface AuditOptions {
  readonly projectDir: string;
  /** One run; every run when absent. */
  readonly runId?: RunId | string;
}

/**
 * Audits contract artifacts, reading only: a file under `.agent/artifacts/` without a matching `artifact.submitted`
 * event and submit record (`non_canonical`), one whose bytes differ from its latest submission (`modified`), and a
 * submit record whose stored payload no longer validates or cannot be read (`invalid`). Nothing is followed.
 */
export async function auditArtifacts(options: AuditOptions): Promise<AuditReport> {
  const projectDir = path.resolve(options.projectDir);
  const scope = options.runId === undefined ? undefined : parseRunId(String(options.runId), 'run id');
  const findings: AuditFinding[] = [];
  const counts = { files: 0, records: 0 };
  const artifactsRoot = await judgeArtifactsRoot(projectDir, findings);

  const folders =
    artifactsRoot === 'folder' ? await readdir(path.join(projectDir, CONTRACT_ARTIFACTS_DIR)) : [];
  const runs = new Set<string>();
  for (const name of folders) {
    if (scope !== undefined && name !== scope) continue;
    const run = await judgeRunFolder(projectDir, name, findings);
    // A run's folder is counted by its files; anything else at this level is one entry judged.
    if (run === undefined) counts.files += 1;
    else runs.add(run);
  }
  const recorded = await listRecordedRuns(projectDir);
  if (scope !== undefined && !recorded.includes(scope) && !runs.has(scope) && !folders.includes(scope))
    throw new UnknownRunError(scope);
  for (const runId of recorded) if (scope === undefined || runId === scope) runs.add(runId);

  // Read-only: opening the store creates .agent/objects, so a project without one is not given one.
  const hasObjects = (await lstatOrMissing(path.join(projectDir, OBJECTS_DIR))) !== undefined;
  const store = hasObjects ? await openObjectStore(projectDir) : undefined;
  try {
    for (const run of [...runs].sort()) {
      const runId = parseRunId(run, 'run id');
      const { records } = await readArtifactRecords(projectDir, runId);
      const submissions = records.filter((record) => record.metadata.source === 'submit');
      // Below a linked .agent/artifacts nothing is read; a missing one still shows the submitted files as deleted.
      if (artifactsRoot !== 'not_a_folder') {
        const events = await readSubmittedEvents(projectDir, runId);
        counts.files += await auditRunFiles(projectDir, runId, submissions, events, findings);
      }
      counts.records += submissions.length;
      await auditRecords(projectDir, store, submissions, findings);
    }
  } finally {
    await store?.close();
  }
  findings.sort(
    (a, b) =>
      (a.run_id ?? '').localeCompare(b.run_id ?? '') ||
      a.path.localeCompare(b.path) ||
      a.code.localeCompare(b.code),
  );
  return {
    scope: scope === undefined ? {} : { runId: scope },
    runs: [...runs].sort(),
    ...counts,
    findings,
  };
}

/** `.agent/artifacts` must be a real folder: a link there would make every artifact land elsewhere. */
async function judgeArtifactsRoot(
  projectDir: string,
  findings: AuditFinding[],
): Promise<'folder' | 'missing' | 'not_a_folder'> {
  const info = await lstatOrMissing(path.join(projectDir, CONTRACT_ARTIFACTS_DIR));
  if (info === undefined) return 'missing';
  if (info.isDirectory()) return 'folder';
  findings.push({
    code: 'non_canonical',
    run_id: null,
    path: CONTRACT_ARTIFACTS_DIR,
    message: `${CONTRACT_ARTIFACTS_DIR} is ${kindOf(info)}, not a folder; it was not followed and no artifact below it was checked`,
  });
  return 'not_a_folder';
}

/** The run of a folder `.agent/artifacts/<run>/` when it is a real folder of a run that exists; else a finding. */
async function judgeRunFolder(
  projectDir: string,
  name: string,
  findings: AuditFinding[],
): Promise<string | undefined> {
  const where = `${CONTRACT_ARTIFACTS_DIR}/${name}`;
  const info = await lstatOrMissing(path.join(projectDir, where));
  if (info === undefined) return undefined;
  // A plain file here cannot be a run's folder, so it claims no run; a folder or a link claims the one it names.
  const runId = isRunId(name) && (info.isDirectory() || info.isSymbolicLink()) ? name : null;
  const problem = await runFolderProblem(projectDir, where, info, runId);
  if (problem === undefined) return runId ?? undefined;
  findings.push({ code: 'non_canonical', run_id: runId, path: where, message: problem });
  return undefined;
}

/** Why an entry of `.agent/artifacts/` is not the folder of an existing run, or undefined when it is one. */
async function runFolderProblem(
  projectDir: string,
  where: string,
  info: Stats,
  runId: RunId | null,
): Promise<string | undefined> {
  if (info.isSymbolicLink())
    return `${where} is a symlink (never followed); only submitArtifact writes here, into a real folder per run`;
  if (!info.isDirectory())
    return `${where} is ${kindOf(info)}; ${CONTRACT_ARTIFACTS_DIR}/ holds only one folder per run`;
  if (runId === null) return `${where} names no run: its name cannot be a run id`;
  const run = await stat(path.join(projectDir, runDir(runId))).catch(() => undefined);
  if (run?.isDirectory() !== true)
    return `${where} is the folder of a run that does not exist (no ${runDir(runId)}/); nothing submitted it`;
  return undefined;
}

/** Judges every entry of `.agent/artifacts/<run>/` against the run's submit records and events; returns how many. */
async function auditRunFiles(
  projectDir: string,
  runId: RunId,
  submissions: readonly ArtifactRecord[],
  events: SubmittedEvents,
  findings: AuditFinding[],
): Promise<number> {
  const folder = path.join(projectDir, CONTRACT_ARTIFACTS_DIR, runId);
  const info = await lstatOrMissing(folder);
  // A run folder that is not a real folder was flagged by judgeRunFolder; nothing below it is read.
  if (info !== undefined && !info.isDirectory()) return 0;
  const names = info === undefined ? [] : (await readdir(folder)).sort();
  flagDeletedFiles(runId, submissions, names, findings);
  for (const name of names) {
    const where = `${CONTRACT_ARTIFACTS_DIR}/${runId}/${name}`;
    const flag = (code: AuditFindingCode, message: string, type?: ContractType): void => {
      findings.push({ code, run_id: runId, path: where, ...(type === undefined ? {} : { type }), message });
    };
    const entry = await lstatOrMissing(path.join(folder, name));
    if (entry === undefined) continue;
    const type = name.endsWith('.json') ? name.slice(0, -'.json'.length) : undefined;
    if (!entry.isFile()) {
      flag(
        'non_canonical',
        `${where} is ${kindOf(entry)} (never followed); submitArtifact writes only regular files`,
      );
      continue;
    }
    if (!isContractType(type)) {
      flag('non_canonical', `${where} is not named <type>.json for a contract type; nothing submitted it`);
      continue;
    }
    const latest = submissions.filter((record) => record.path === contractArtifactPath(runId, type)).at(-1);
    if (latest === undefined) {
      flag('non_canonical', `${where} has no submit record: it was written outside submitArtifact`, type);
      continue;
    }
    const hashed = await hashArtifactFile(path.join(folder, name));
    if (hashed.kind === 'missing') continue;
    if (hashed.kind === 'not_a_file') {
      flag(
        'non_canonical',
        `${where} stopped being a regular file while it was audited; it was not followed`,
        type,
      );
      continue;
    }
    if (hashed.contentHash !== latest.contentHash) {
      const older = submissions.find(
        (record) => record.path === latest.path && record.contentHash === hashed.contentHash,
      );
      flag(
        'modified',
        older === undefined
          ? `${where} was changed after its latest submission ${latest.artifactId} (it hashes to ${hashed.contentHash}, the record says ${latest.contentHash}); submit it again instead of editing it`
          : `${where} holds the older submission ${older.artifactId}, not the latest ${latest.artifactId}; it was put back by hand`,
        type,
      );
      continue;
    }
    if (events.get(latest.path)?.has(latest.contentHash) !== true) {
      flag(
        'non_canonical',
        `${where} has a submit record (${latest.artifactId}) but no artifact.submitted event with its hash in the run's events.jsonl; the record was not made by submitArtifact`,
        type,
      );
    }
  }
  return names.length;
}

/** A submitted artifact whose file is gone was changed after submission too: `modified`. */
function flagDeletedFiles(
  runId: RunId,
  submissions: readonly ArtifactRecord[],
  names: readonly string[],
  findings: AuditFinding[],
): void {
  const present = new Set(names.map((name) => `${CONTRACT_ARTIFACTS_DIR}/${runId}/${name}`));
  const flagged = new Set<string>();
  for (const record of submissions) {
    const type = record.metadata.contract;
    if (present.has(record.path) || flagged.has(record.path) || !isContractType(type)) continue;
    if (record.path !== contractArtifactPath(runId, type)) continue;
    flagged.add(record.path);
    findings.push({
      code: 'modified',
      run_id: runId,
      path: record.path,
      type,
      message: `${record.path} was deleted after its submission ${record.artifactId}; submit it again (its payload is still in the object store)`,
    });
  }
}

/** Re-validates each submit record's stored payload against today's schema (each content once). */
async function auditRecords(
  projectDir: string,
  store: ObjectStore | undefined,
  submissions: readonly ArtifactRecord[],
  findings: AuditFinding[],
): Promise<void> {
  const verdicts = new Map<string, string | undefined>();
  for (const record of submissions) {
    const type = record.metadata.contract;
    const key = `${type ?? ''}\0${record.contentHash}`;
    if (!verdicts.has(key)) verdicts.set(key, await judgeStoredPayload(projectDir, store, record));
    const problem = verdicts.get(key);
    if (problem === undefined) continue;
    findings.push({
      code: 'invalid',
      run_id: record.runId,
      path: record.path,
      ...(isContractType(type) ? { type } : {}),
      message: `record ${record.artifactId}: ${problem}`,
    });
  }
}

function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symlink';
  if (info.isDirectory()) return 'a folder';
  if (info.isFile()) return 'a file';
  return 'a special file (FIFO, socket or device)';
}
