import { basename, posix } from 'node:path';
import {
  AGENT_DIR,
  artifactRecordsPath,
  CONTRACT_ARTIFACTS_DIR,
  isRunId,
  objectPath,
  OBJECTS_DIR,
  runDir,
  RUNS_DIR,
  UnknownRunError,
  WORKSPACE_DIR,
  WORKSPACE_LOCK_PATH,
  mapLimit,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import {
  errnoOf,
  findStaleTempFiles,
  readLiveShortLockOwner,
  tempFileWriter,
} from '../../workspace/index.js';
import type { FoundTempFile } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { judgeRecordPath } from '../judge-record-path.js';
import {
  hasRunFolder,
  indexFileOf,
  isVersionRecord,
  latestPathVersion,
  listIndexFiles,
  readArtifactRecords,
  sortByTime,
} from '../store/index.js';
import type { ProjectRecords } from '../store/index.js';
import { compareRunIndexes } from './compare-run-indexes.js';
import { inspectWorkspaceFile } from './inspect-workspace-file.js';
import { findInterruptedIngests } from './find-interrupted-ingests.js';
import type { InterruptedIngest } from './find-interrupted-ingests.js';
import { storeLockSlot, usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import type { ObjectVerdict } from '../store/index.js';
import { readProjectRecords } from '../store/index.js';
import { readRecordLines } from '../store/index.js';
import type { VerifyProblem } from './verify-problem.js';

/** What {@link verifyArtifacts} checked and every problem it found. */
export interface VerifyReport {
  readonly scope: { readonly runId?: string };
  /** Runs in scope. */
  readonly runs: number;
  /** Valid records in scope. */
  readonly records: number;
  /** Distinct contents re-hashed in the object store. */
  readonly objects: { readonly checked: number; readonly ok: number };
  /** Workspace paths in scope compared with their latest recorded version. */
  readonly workspaceFiles: { readonly checked: number; readonly ok: number };
  readonly problems: readonly VerifyProblem[];
  /** How many problems are errors (corruption, drift) and how many warnings (index drift). */
  readonly errors: number;
  readonly warnings: number;
}

/** Options of {@link verifyArtifacts}. */
export interface VerifyOptions {
  /** Check only this run's records (the workspace is still compared with the project's latest versions). */
  readonly runId?: string;
  /**
   * Compare the project folder's live `workspace/` (and look for its stale temp files). Default: yes, except for a
   * remote store, whose lineage is a fleet's: the folder of the machine reading it is not the workspace its runs
   * wrote, so a fleet `verify` checks the records and contents only.
   */
  readonly workspace?: boolean;
}

const HASH_CONCURRENCY = 8;
const REINDEX = "run 'artifact-ingest reindex' to rebuild the index";

/**
 * Re-hashes the objects and the live workspace files the records of a project (or of one run) point to, and
 * checks the path index against the runs' artifacts.jsonl; reads only, never writes. Throws UnknownRunError for
 * a run id that names no run folder (or is not an id).
 */
export function verifyArtifacts(project: ProjectRef, options: VerifyOptions = {}): Promise<VerifyReport> {
  return usingProject(project, async (opened) => {
    // Through a session: the folders it reads many files from (a run's, the path index and its <2 hex> folders)
    // are walked once, not once per file.
    const session = await opened.store.openSession();
    try {
      return await verify({ dir: opened.dir, store: session }, options);
    } finally {
      await session.close();
    }
  });
}

async function verify(opened: Project, options: VerifyOptions): Promise<VerifyReport> {
  const asked = options.runId;
  if (asked !== undefined && !isRunId(asked)) throw new UnknownRunError(asked);
  const runId: RunId | undefined = asked;
  // A run's check reads that run's records and the path index; only the whole project's reads every run.
  const project = runId === undefined ? await readProjectRecords(opened) : await readOneRun(opened, runId);
  const runs = runId === undefined ? project.runs : [runId];
  const scoped = runs.flatMap((run) => project.byRun.get(run) ?? []);
  const problems: VerifyProblem[] = project.problems
    .filter((problem) => runId === undefined || problem.file === artifactRecordsPath(runId))
    .map((problem) => ({
      code: 'invalid_record_line',
      severity: 'error',
      message: `${problem.message}; every reader skips it: repair or remove the line, then ${REINDEX}`,
      ...runOfRecordsFile(problem.file),
    }));

  // A record whose path no writer records (hand-edited, or imported by a version that did not check) is reported
  // and left out: its path is never joined onto the project, so no outside file is read or hashed.
  problems.push(...scoped.flatMap(unsafeRecordProblem));
  const safe = scoped.filter(hasSafePath);
  const objects = await verifyObjects(opened, safe);
  problems.push(...objects.problems);
  const allRecords = project.runs.flatMap((run) => project.byRun.get(run) ?? []).filter(hasSafePath);
  const checkWorkspace = options.workspace ?? opened.store.kind !== 'remote';
  const workspace = checkWorkspace
    ? await verifyWorkspace(
        opened.dir,
        safe,
        runId === undefined ? latestIn(allRecords) : (path) => latestPathVersion(opened, path),
      )
    : { checked: 0, ok: 0, problems: [] };
  problems.push(...workspace.problems);
  if (runId === undefined) {
    problems.push(...(await compareIndex(opened, allRecords)));
    problems.push(...(await compareRunIndexes(opened, project)));
  }
  // The one ingest that holds the workspace lock now is in progress, not interrupted: only it can have started
  // (and made temp files in workspace/) since the live holder took the lock. A temp file whose name names a
  // live process of this host is a write in progress too.
  const inProgressSince = await liveWorkspaceLockSince(opened);
  const beforeLock = (at: number): boolean => inProgressSince === undefined || at < inProgressSince;
  for (const run of runs) {
    const interrupted = await findInterruptedIngests(opened, run);
    problems.push(
      ...interrupted.filter((ingest) => beforeLock(Date.parse(ingest.ts))).map(interruptedProblem),
    );
  }
  // A temp file names no run: the project's check walks workspace/ and all of .agent/; a run's check walks what
  // the run writes into (workspace/, its run and contract folders, its objects' folders), so that it costs what
  // the run holds, not what the project has gathered.
  // Temp files are the confined writer's: in workspace/, and in .agent/ only where the files store keeps it.
  const tempFolders = runId === undefined ? [WORKSPACE_DIR, AGENT_DIR] : tempFoldersOf(runId, scoped);
  const temps = await findStaleTempFiles(
    opened.dir,
    tempFolders.filter((folder) =>
      folder === WORKSPACE_DIR ? checkWorkspace : opened.store.kind === 'files',
    ),
  );
  problems.push(
    ...temps
      .filter((temp) => tempFileWriter(basename(temp.path)) !== 'alive')
      .filter((temp) => !temp.path.startsWith(`${WORKSPACE_DIR}/`) || beforeLock(temp.mtime.getTime()))
      .map(staleTempProblem),
  );

  const warnings = problems.filter((problem) => problem.severity === 'warning').length;
  return {
    scope: runId === undefined ? {} : { runId },
    runs: runs.length,
    records: scoped.length,
    objects: { checked: objects.checked, ok: objects.ok },
    workspaceFiles: { checked: workspace.checked, ok: workspace.ok },
    problems,
    errors: problems.length - warnings,
    warnings,
  };
}

interface Checked {
  readonly checked: number;
  readonly ok: number;
  readonly problems: readonly VerifyProblem[];
}

/** Re-hashes each distinct content once, in order of first reference. */
async function verifyObjects(project: Project, records: readonly ArtifactRecord[]): Promise<Checked> {
  const users = new Map<string, ArtifactRecord[]>();
  for (const record of records) {
    const list = users.get(record.contentHash) ?? [];
    list.push(record);
    users.set(record.contentHash, list);
  }
  const hashes = [...users.keys()];
  // Opening the files store's objects creates their folder; without one, every object is missing and nothing
  // may be written.
  if ((await project.store.list(OBJECTS_DIR)).length === 0) {
    return {
      checked: hashes.length,
      ok: 0,
      problems: hashes.map((hash) => objectProblem('missing', users.get(hash) ?? [])),
    };
  }
  const store = await project.store.openObjects({ durability: 'none' });
  let verdicts: ObjectVerdict[];
  try {
    verdicts = await mapLimit(hashes, HASH_CONCURRENCY, async (hash) => {
      try {
        return await store.verify(hash);
      } catch (error) {
        // A symlink (O_NOFOLLOW) or a folder standing where an object belongs does not hold the content.
        const code = errnoOf(error);
        if (code === 'ELOOP' || code === 'EISDIR') return 'corrupt';
        throw error;
      }
    });
  } finally {
    await store.close();
  }
  const problems: VerifyProblem[] = [];
  verdicts.forEach((verdict, index) => {
    if (verdict !== 'ok') problems.push(objectProblem(verdict, users.get(hashes[index] ?? '') ?? []));
  });
  return { checked: hashes.length, ok: hashes.length - problems.length, problems };
}

function objectProblem(verdict: 'missing' | 'corrupt', users: readonly ArtifactRecord[]): VerifyProblem {
  const [first] = users;
  if (first === undefined) throw new Error('an object problem needs the record that references the object');
  const others = users.length > 1 ? ` and ${users.length - 1} other record(s)` : '';
  const owner = `${first.path} (${first.artifactId}, run ${first.runId})${others}`;
  const message =
    verdict === 'missing'
      ? `object ${first.contentHash} of ${owner} is missing from ${OBJECTS_DIR}; restore it with 'artifact-ingest import' of a bundle that holds it, or ingest the original content again`
      : `object ${first.contentHash} of ${owner} is corrupt: its bytes no longer hash to its name; restore it with 'artifact-ingest import' of a bundle that holds it, or ingest the original content again to rewrite it`;
  return {
    code: verdict === 'missing' ? 'missing_object' : 'corrupt_object',
    severity: 'error',
    message,
    path: first.path,
    contentHash: first.contentHash,
    runId: first.runId,
    artifactId: first.artifactId,
  };
}

/** The newest version of each workspace path among `records` (of equal times, the later in run order). */
function latestIn(records: readonly ArtifactRecord[]): (path: string) => Promise<ArtifactRecord | undefined> {
  const latest = new Map<string, ArtifactRecord>();
  for (const record of sortByTime(records.filter(isWorkspaceVersion))) latest.set(record.path, record);
  return (path) => Promise.resolve(latest.get(path));
}

/** Reads one run's records, shaped as the whole project's read; throws UnknownRunError without its folder. */
async function readOneRun(project: Project, runId: RunId): Promise<ProjectRecords> {
  if (!(await hasRunFolder(project, runId))) throw new UnknownRunError(runId);
  const read = await readArtifactRecords(project, runId);
  return { runs: [runId], byRun: new Map([[runId, read.records]]), problems: read.problems };
}

/** Compares each workspace path recorded in scope with the newest version of that path in the whole project. */
async function verifyWorkspace(
  projectDir: string,
  scoped: readonly ArtifactRecord[],
  latestOf: (path: string) => Promise<ArtifactRecord | undefined>,
): Promise<Checked> {
  const paths = [...new Set(scoped.filter(isWorkspaceVersion).map((record) => record.path))];
  const problems = await mapLimit(paths, HASH_CONCURRENCY, async (path) => {
    const record = await latestOf(path);
    return record === undefined ? undefined : checkWorkspaceFile(projectDir, record);
  });
  const found = problems.filter((problem) => problem !== undefined);
  return { checked: paths.length, ok: paths.length - found.length, problems: found };
}

function isWorkspaceVersion(record: ArtifactRecord): boolean {
  return (record.type === 'file' || record.type === 'design') && record.path.startsWith('workspace/');
}

/** Turns the state of one live workspace file into a problem, or undefined when it holds the recorded bytes. */
async function checkWorkspaceFile(
  projectDir: string,
  record: ArtifactRecord,
): Promise<VerifyProblem | undefined> {
  // The path index may name a newest version whose path breaks its rule: it is its run's finding, never a read.
  if (!hasSafePath(record)) return undefined;
  const state = await inspectWorkspaceFile(projectDir, record.path, record.contentHash);
  const fields = recordFields(record);
  const recorded = `${record.artifactId} (run ${record.runId}, node ${record.taskId})`;
  // checkout --at includes versions recorded at exactly that time, so this rebuilds the recorded version.
  const checkout = `copy the recorded version out with 'artifact-ingest checkout --at ${record.createdAt} --to DIR'`;
  switch (state.kind) {
    case 'same':
      return undefined;
    case 'modified':
      return {
        code: 'workspace_modified',
        severity: 'error',
        message: `${record.path} differs from its last recorded version ${recorded}; ingest the change to record it, or ${checkout}`,
        ...fields,
      };
    case 'missing':
      return {
        code: 'workspace_missing',
        severity: 'error',
        message: `${record.path} is gone from the workspace; its last recorded version is ${recorded}: ${checkout}, or ignore this if it was deleted on purpose`,
        ...fields,
      };
    case 'not_a_file': {
      const role = state.where === record.path ? 'the recorded file' : `a folder of ${record.path}`;
      return {
        code: 'workspace_not_a_file',
        severity: 'error',
        message: `${state.what} stands at ${state.where}, where ${role} belongs (last recorded version ${recorded}); move it away and ${checkout}`,
        ...fields,
      };
    }
  }
}

function hasSafePath(record: ArtifactRecord): boolean {
  return judgeRecordPath(record) === undefined;
}

function unsafeRecordProblem(record: ArtifactRecord): VerifyProblem[] {
  const refused = judgeRecordPath(record);
  if (refused === undefined) return [];
  return [
    {
      code: 'unsafe_record_path',
      severity: 'error',
      message: `record ${record.artifactId} (${record.type} of run ${record.runId}, node ${record.taskId}) ${refused.message} (rule ${refused.rule}); no writer of artifact-ingest records such a path, so ${artifactRecordsPath(record.runId)} was edited by hand or imported by a version that did not check it. It was not read: remove that line (or the run), then ${REINDEX}`,
      ...recordFields(record),
    },
  ];
}

/** When the live holder of the workspace lock took it (epoch ms), or undefined when no live process holds it. */
async function liveWorkspaceLockSince({ store }: Project): Promise<number | undefined> {
  const owner = await readLiveShortLockOwner(storeLockSlot(store, WORKSPACE_LOCK_PATH)).catch(
    () => undefined,
  );
  return owner === undefined ? undefined : Date.parse(owner.acquired_at);
}

/** The folders a run's writes go into: workspace/, its run folder, its contract artifacts, its objects' folders. */
function tempFoldersOf(runId: RunId, records: readonly ArtifactRecord[]): string[] {
  const objectFolders = new Set(
    records.map((record) => posix.dirname(objectPath(record.contentHash.slice('sha256:'.length)))),
  );
  return [WORKSPACE_DIR, runDir(runId), `${CONTRACT_ARTIFACTS_DIR}/${runId}`, ...[...objectFolders].sort()];
}

function interruptedProblem(ingest: InterruptedIngest): VerifyProblem {
  const shown = ingest.plannedPaths.join(', ');
  const more =
    ingest.planned > ingest.plannedPaths.length
      ? ` and ${String(ingest.planned - ingest.plannedPaths.length)} more`
      : '';
  return {
    code: 'interrupted_ingest',
    severity: 'error',
    message: `the ingest of ${ingest.docPath} (run ${ingest.runId}, node ${ingest.nodeId}) started at ${ingest.ts} and never finished: ${shown}${more} may be on disk without a manifest or records; ingest it again with the same run and node id ('artifact-ingest ingest ${ingest.docPath} --run-id ${ingest.runId} --node-id ${ingest.nodeId}', or 'artifact-ingest run --resume' for a run)`,
    ...(ingest.plannedPaths[0] === undefined ? {} : { path: ingest.plannedPaths[0] }),
    runId: ingest.runId,
    nodeId: ingest.nodeId,
    docPath: ingest.docPath,
    plannedPaths: ingest.plannedPaths,
  };
}

function staleTempProblem(temp: FoundTempFile): VerifyProblem {
  return {
    code: 'stale_temp_file',
    severity: 'warning',
    message: `${temp.path} (last modified ${temp.mtime.toISOString()}) is a writer's temp file that was never renamed into place; unless a write is running now, its writer was killed: the next write into its folder removes it, or delete it`,
    path: temp.path,
  };
}

/** Compares the path index with the version records of every run, as multisets of whole records. */
async function compareIndex(
  project: Project,
  allRecords: readonly ArtifactRecord[],
): Promise<VerifyProblem[]> {
  const expected = new Map<string, { record: ArtifactRecord; count: number }>();
  for (const record of allRecords.filter(isVersionRecord)) {
    const key = JSON.stringify(record);
    const entry = expected.get(key);
    if (entry === undefined) expected.set(key, { record, count: 1 });
    else entry.count += 1;
  }
  const problems: VerifyProblem[] = [];
  for (const file of await listIndexFiles(project)) {
    const read = await readRecordLines(project, file);
    for (const problem of read.problems) {
      // The index is rebuilt from the runs, so an unreadable index line is index drift, not lost data.
      problems.push({
        code: 'invalid_record_line',
        severity: 'warning',
        message: `${problem.message}; ${REINDEX}`,
      });
    }
    for (const record of read.records) {
      const entry = expected.get(JSON.stringify(record));
      // A record in another path's index file is never found by log, so it counts as unknown there.
      if (entry !== undefined && entry.count > 0 && indexFileOf(record.path) === file) {
        entry.count -= 1;
        continue;
      }
      problems.push({
        code: 'index_unknown_record',
        severity: 'warning',
        message: `${file} holds ${record.artifactId} (${record.path}, run ${record.runId}), which no run's artifacts.jsonl records; ${REINDEX}`,
        ...recordFields(record),
      });
    }
  }
  for (const { record, count } of expected.values()) {
    for (let missing = 0; missing < count; missing += 1) {
      problems.push({
        code: 'index_missing_record',
        severity: 'warning',
        message: `${record.artifactId} (${record.path}, run ${record.runId}) is missing from the path index, so 'artifact-ingest log' cannot see it; ${REINDEX}`,
        ...recordFields(record),
      });
    }
  }
  return problems;
}

function recordFields(
  record: ArtifactRecord,
): Pick<VerifyProblem, 'path' | 'contentHash' | 'runId' | 'artifactId'> {
  return {
    path: record.path,
    contentHash: record.contentHash,
    runId: record.runId,
    artifactId: record.artifactId,
  };
}

function runOfRecordsFile(file: string): { runId?: string } {
  // A run's records file is `<RUNS_DIR>/<run_id>/artifacts.jsonl`: the id is the folder in between.
  const runId = file.slice(RUNS_DIR.length + 1).split('/')[0] ?? '';
  return isRunId(runId) && file === artifactRecordsPath(runId) ? { runId } : {};
}
