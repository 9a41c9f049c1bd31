import path from 'node:path';
import { listRecordedRuns, readArtifactRecords } from '../../artifacts/index.js';
import type { ArtifactRecord, ObjectStore } from '../../artifacts/index.js';
import {
  AGENT_DIR,
  CONTRACT_ARTIFACTS_DIR,
  OBJECTS_DIR,
  contractArtifactPath,
  isRunId,
  parseRunId,
  runDir,
  UnknownRunError,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { StoreError, usingProject } from '../../store/index.js';
import type { Project, ProjectRef, ProjectStore, StoreEntry } from '../../store/index.js';
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
  /** The project: its folder (its `.agent/` is read), or a {@link Project} on any store. */
  readonly projectDir: ProjectRef;
  /** One run; every run when absent. */
  readonly runId?: RunId | string;
}

/**
 * Audits contract artifacts, reading only: a file under `.agent/artifacts/` without a matching `artifact.submitted`
 * event and submit record (`non_canonical`), one whose bytes differ from its latest submission (`modified`), and a
 * submit record whose stored payload no longer validates or cannot be read (`invalid`). Nothing is followed.
 */
export async function auditArtifacts(options: AuditOptions): Promise<AuditReport> {
  const scope = options.runId === undefined ? undefined : parseRunId(String(options.runId), 'run id');
  const project =
    typeof options.projectDir === 'string' ? path.resolve(options.projectDir) : options.projectDir;
  return usingProject(project, (opened) => audit(opened, scope));
}

/** What stands at a key of `.agent/`, as messages name it: a symlink and a FIFO both list as `other`. */
type EntryKind = 'file' | 'folder' | 'symlink' | 'special' | 'unknown';

async function audit(project: Project, scope: RunId | undefined): Promise<AuditReport> {
  const { store } = project;
  const findings: AuditFinding[] = [];
  const counts = { files: 0, records: 0 };
  const agentEntries = await store.list(AGENT_DIR);
  const artifactsRoot = await judgeArtifactsRoot(store, agentEntries, findings);

  const folders = artifactsRoot === 'folder' ? await store.list(CONTRACT_ARTIFACTS_DIR) : [];
  const recorded = await listRecordedRuns(project);
  const recordedRuns = new Set<string>(recorded);
  const runs = new Set<string>();
  for (const entry of folders) {
    if (scope !== undefined && entry.name !== scope) continue;
    const run = await judgeRunFolder(store, entry, recordedRuns, findings);
    // A run's folder is counted by its files; anything else at this level is one entry judged.
    if (run === undefined) counts.files += 1;
    else runs.add(run);
  }
  const names = folders.map((entry) => entry.name);
  if (scope !== undefined && !recorded.includes(scope) && !runs.has(scope) && !names.includes(scope))
    throw new UnknownRunError(scope);
  for (const runId of recorded) if (scope === undefined || runId === scope) runs.add(runId);

  // Read only, and only when the project has objects: an audit creates nothing.
  const hasObjects = agentEntries.some((entry) => `${AGENT_DIR}/${entry.name}` === OBJECTS_DIR);
  const objects = hasObjects ? await store.openObjects({ readOnly: true }) : undefined;
  try {
    for (const run of [...runs].sort()) {
      const runId = parseRunId(run, 'run id');
      const { records } = await readArtifactRecords(project, runId);
      const submissions = records.filter((record) => record.metadata.source === 'submit');
      // Below a linked .agent/artifacts nothing is read; a missing one still shows the submitted files as deleted.
      if (artifactsRoot !== 'not_a_folder') {
        const events = await readSubmittedEvents(project, runId);
        const folder = folders.find((entry) => entry.name === runId);
        counts.files += await auditRunFiles(store, runId, folder, submissions, events, findings);
      }
      counts.records += submissions.length;
      await auditRecords(objects, submissions, findings);
    }
  } finally {
    await objects?.close();
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
  store: ProjectStore,
  agentEntries: readonly StoreEntry[],
  findings: AuditFinding[],
): Promise<'folder' | 'missing' | 'not_a_folder'> {
  const entry = agentEntries.find((candidate) => `${AGENT_DIR}/${candidate.name}` === CONTRACT_ARTIFACTS_DIR);
  if (entry === undefined) return 'missing';
  if (entry.kind === 'folder') return 'folder';
  findings.push({
    code: 'non_canonical',
    run_id: null,
    path: CONTRACT_ARTIFACTS_DIR,
    message: `${CONTRACT_ARTIFACTS_DIR} is ${kindOf(await kindAt(store, CONTRACT_ARTIFACTS_DIR, entry.kind))}, not a folder; it was not followed and no artifact below it was checked`,
  });
  return 'not_a_folder';
}

/** The run of a folder `.agent/artifacts/<run>/` when it is a real folder of a run that exists; else a finding. */
async function judgeRunFolder(
  store: ProjectStore,
  entry: StoreEntry,
  recorded: ReadonlySet<string>,
  findings: AuditFinding[],
): Promise<string | undefined> {
  const where = `${CONTRACT_ARTIFACTS_DIR}/${entry.name}`;
  const kind = await kindAt(store, where, entry.kind);
  // A plain file here cannot be a run's folder, so it claims no run; a folder or a link claims the one it names.
  const runId = isRunId(entry.name) && (kind === 'folder' || kind === 'symlink') ? entry.name : null;
  const problem = runFolderProblem(where, kind, runId, recorded);
  if (problem === undefined) return runId ?? undefined;
  findings.push({ code: 'non_canonical', run_id: runId, path: where, message: problem });
  return undefined;
}

/** Why an entry of `.agent/artifacts/` is not the folder of an existing run, or undefined when it is one. */
function runFolderProblem(
  where: string,
  kind: EntryKind,
  runId: RunId | null,
  recorded: ReadonlySet<string>,
): string | undefined {
  if (kind === 'symlink')
    return `${where} is a symlink (never followed); only submitArtifact writes here, into a real folder per run`;
  if (kind !== 'folder')
    return `${where} is ${kindOf(kind)}; ${CONTRACT_ARTIFACTS_DIR}/ holds only one folder per run`;
  if (runId === null) return `${where} names no run: its name cannot be a run id`;
  if (!recorded.has(runId))
    return `${where} is the folder of a run that does not exist (no ${runDir(runId)}/); nothing submitted it`;
  return undefined;
}

/**
 * Judges every entry of `.agent/artifacts/<run>/` (listed as `folder`, absent when there is none) against the run's
 * submit records and events; returns how many.
 */
async function auditRunFiles(
  store: ProjectStore,
  runId: RunId,
  folder: StoreEntry | undefined,
  submissions: readonly ArtifactRecord[],
  events: SubmittedEvents,
  findings: AuditFinding[],
): Promise<number> {
  // A run folder that is not a real folder was flagged by judgeRunFolder; nothing below it is read.
  if (folder !== undefined && folder.kind !== 'folder') return 0;
  const entries =
    folder === undefined
      ? []
      : (await store.list(`${CONTRACT_ARTIFACTS_DIR}/${runId}`)).sort((a, b) =>
          a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
        );
  flagDeletedFiles(
    runId,
    submissions,
    entries.map((entry) => entry.name),
    findings,
  );
  for (const entry of entries) {
    const { name } = entry;
    const where = `${CONTRACT_ARTIFACTS_DIR}/${runId}/${name}`;
    const flag = (code: AuditFindingCode, message: string, type?: ContractType): void => {
      findings.push({ code, run_id: runId, path: where, ...(type === undefined ? {} : { type }), message });
    };
    const type = name.endsWith('.json') ? name.slice(0, -'.json'.length) : undefined;
    const kind = await kindAt(store, where, entry.kind);
    if (kind !== 'file') {
      flag(
        'non_canonical',
        `${where} is ${kindOf(kind)} (never followed); submitArtifact writes only regular files`,
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
    const hashed = await hashArtifactFile(store, where);
    if (hashed.kind === 'missing') continue;
    if (hashed.kind === 'not_a_file') {
      flag(
        'non_canonical',
        hashed.refusal === 'hard_link'
          ? `${where} is a file with more than one name (a hard link); it was not read, since submitArtifact writes each file once`
          : `${where} stopped being a regular file while it was audited; it was not followed`,
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
  return entries.length;
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
  store: ObjectStore | undefined,
  submissions: readonly ArtifactRecord[],
  findings: AuditFinding[],
): Promise<void> {
  const verdicts = new Map<string, string | undefined>();
  for (const record of submissions) {
    const type = record.metadata.contract;
    const key = `${type ?? ''}\0${record.contentHash}`;
    if (!verdicts.has(key)) verdicts.set(key, await judgeStoredPayload(store, record));
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

/** What stands at `key`, listed as `listed`: the store tells a symlink from a FIFO, socket or device. */
async function kindAt(store: ProjectStore, key: string, listed: StoreEntry['kind']): Promise<EntryKind> {
  if (listed !== 'other') return listed;
  try {
    await store.info(key);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    // A name no key spells (`a b`) cannot be asked about: it is neither a file nor a folder, and never read.
    if (error.code === 'malformed_key') return 'unknown';
    return error.refusal === 'symlink' ? 'symlink' : 'special';
  }
  return 'special';
}

function kindOf(kind: EntryKind): string {
  switch (kind) {
    case 'symlink':
      return 'a symlink';
    case 'folder':
      return 'a folder';
    case 'file':
      return 'a file';
    case 'special':
      return 'a special file (FIFO, socket or device)';
    case 'unknown':
      return 'neither a file nor a folder';
  }
}
