import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseFences } from '../fence/index.js';
import { memoryEventLog, openEventLog, redactSecrets } from '../events/index.js';
import type { EventLevel, EventLog } from '../events/index.js';
import { openConfinedRoot, WorkspaceError } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { DEFAULT_INGEST_LIMITS } from './ingest-limits.js';
import type { IngestLimits } from './ingest-limits.js';
import { ingestManifestSchema, runIdSchema } from './ingest-manifest.js';
import type { IngestManifest, IngestMode, ManifestArtifact, SourceKind } from './ingest-manifest.js';
import { planBlocks } from './plan-blocks.js';
import type { BlockPlan } from './plan-blocks.js';
import { statusOfReason } from './reason-code.js';
import type { ReasonCode } from './reason-code.js';

/** Options for one document's ingest. */
export interface IngestOptions {
  /** Project root P: documents, workspace/ and .agent/ live under it. */
  readonly projectDir: string;
  /** The document, relative to the project root (or absolute inside it). */
  readonly docPath: string;
  readonly runId: string;
  readonly nodeId: string;
  readonly sourceKind?: SourceKind;
  readonly mode?: IngestMode;
  /** Judge everything, write nothing: no workspace file, no manifest, no event line. */
  readonly dryRun?: boolean;
  /** 'open' (default): problems are recorded, never thrown. 'closed': {@link ingestDocument} throws on them. */
  readonly failMode?: 'open' | 'closed';
  readonly durability?: 'fsync' | 'none';
  readonly limits?: Partial<IngestLimits>;
  /** An event log to append to instead of opening the run's events.jsonl (the caller closes it). */
  readonly events?: EventLog;
  /** Clock, for reproducible manifests in tests. */
  readonly now?: () => Date;
}

/** A problem that stopped part of an ingest: I/O, decoding, schema or an internal exception. */
export interface IngestProblem {
  readonly code:
    | 'document_unreadable'
    | 'invalid_utf8'
    | 'too_large'
    | 'too_complex'
    | 'io_error'
    | 'schema_error'
    | 'internal_error';
  readonly message: string;
}

/** Everything one ingest produced: the manifest, where it was written, and the problems met on the way. */
export interface IngestResult {
  readonly manifest: IngestManifest;
  /** Project-relative path of the written manifest, or null (dry run, or the manifest could not be written). */
  readonly manifestPath: string | null;
  readonly problems: readonly IngestProblem[];
  /** True when a block was rejected or a problem occurred: what `failMode: 'closed'` turns into failure. */
  readonly failed: boolean;
}

/** Thrown by {@link ingestDocument} under `failMode: 'closed'`, carrying the full result. */
export class IngestFailedError extends Error {
  override readonly name = 'IngestFailedError';
  constructor(readonly result: IngestResult) {
    const { summary } = result.manifest;
    super(
      `ingest of ${result.manifest.source.doc_path} failed: ${summary.rejected} block(s) rejected, ${result.problems.length} problem(s)` +
        result.problems.map((problem) => `\n  ${problem.code}: ${problem.message}`).join(''),
    );
  }
}

/** Ingests one document and returns its manifest v1; throws {@link IngestFailedError} only under `failMode: 'closed'`. */
export async function ingestDocument(options: IngestOptions): Promise<IngestManifest> {
  const result = await runIngest(options);
  if (options.failMode === 'closed' && result.failed) throw new IngestFailedError(result);
  return result.manifest;
}

/** Ingests one document, never throwing for anything but misuse (bad ids, a document outside the project). */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  const projectDir = path.resolve(options.projectDir);
  const docPath = projectRelative(projectDir, options.docPath);
  assertId('runId', options.runId);
  assertId('nodeId', options.nodeId);
  const limits = { ...DEFAULT_INGEST_LIMITS, ...options.limits };
  const now = options.now ?? (() => new Date());
  const dryRun = options.dryRun === true;
  const problems: IngestProblem[] = [];
  const runDir = path.posix.join('.agent', 'runs', options.runId);

  const bindings = { run_id: options.runId, node_id: options.nodeId, doc_path: docPath };
  const ownLog = options.events === undefined;
  const events = openRunEvents(options, projectDir, runDir, dryRun, problems).child(bindings);
  const problem = (code: IngestProblem['code'], message: string): void => {
    const redacted = redactSecrets(message);
    problems.push({ code, message: redacted });
    events.write('ERROR', 'ingest.error', { code, message: redacted });
  };

  let artifacts: ManifestArtifact[] = [];
  let parsedDocument = false;
  try {
    const text = await readDocument(projectDir, docPath, limits, problem);
    if (text !== null) {
      parsedDocument = true;
      const scan = parseFences(text, { timeLimitMs: limits.maxParseMs });
      if (scan.timedOut === true) {
        problem(
          'too_complex',
          `${docPath} took over max_parse_ms (${limits.maxParseMs} ms) to parse; nothing was written`,
        );
      } else {
        const plans = planBlocks(scan.blocks, limits);
        artifacts = await applyPlans(plans, projectDir, dryRun, options.durability ?? 'fsync', problem);
        for (const artifact of artifacts) events.write(levelOf(artifact), 'ingest.block', { ...artifact });
      }
    }
  } catch (error) {
    problem('internal_error', describeError(error));
  }

  const manifest = buildManifest(options, docPath, artifacts, now());
  const checked = ingestManifestSchema.safeParse(manifest);
  if (!checked.success) problem('schema_error', checked.error.message);

  let manifestPath: string | null = null;
  // Spec 1 (decided): an undecodable document writes nothing, not even a manifest.
  const mayWriteManifest =
    !dryRun && checked.success && (parsedDocument || !problems.some((p) => p.code === 'invalid_utf8'));
  if (mayWriteManifest) {
    manifestPath = await writeManifest(
      projectDir,
      runDir,
      options.nodeId,
      manifest,
      options.durability ?? 'fsync',
      problem,
    );
  }

  const { summary } = manifest;
  const noneValid =
    summary.total_blocks > 0 &&
    summary.written === 0 &&
    artifacts.every((a) => !a.reason.startsWith('unchanged'));
  const level: EventLevel = problems.length > 0 ? 'ERROR' : noneValid ? 'WARNING' : 'INFO';
  events.write(level, 'ingest.summary', { ...summary, manifest_path: manifestPath ?? '', dry_run: dryRun });
  if (ownLog) await closeQuietly(events);

  return { manifest, manifestPath, problems, failed: problems.length > 0 || summary.rejected > 0 };
}

function openRunEvents(
  options: IngestOptions,
  projectDir: string,
  runDir: string,
  dryRun: boolean,
  problems: IngestProblem[],
): EventLog {
  if (options.events !== undefined) return options.events;
  if (dryRun) return memoryEventLog();
  try {
    return openEventLog(path.join(projectDir, runDir, 'events.jsonl'));
  } catch (error) {
    // Fail-open (spec 6): without an event log the problem still reaches the caller and stderr.
    const message = redactSecrets(`cannot open ${runDir}/events.jsonl: ${describeError(error)}`);
    problems.push({ code: 'io_error', message });
    process.stderr.write(`artifact-ingest: ${message}\n`);
    return memoryEventLog();
  }
}

async function readDocument(
  projectDir: string,
  docPath: string,
  limits: IngestLimits,
  problem: (code: IngestProblem['code'], message: string) => void,
): Promise<string | null> {
  const absolute = path.join(projectDir, docPath);
  let bytes: Buffer;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      problem('document_unreadable', `${docPath} is not a regular file`);
      return null;
    }
    if (info.size > limits.maxDocumentBytes) {
      problem(
        'too_large',
        `${docPath} is ${info.size} bytes; max_document_bytes is ${limits.maxDocumentBytes}`,
      );
      return null;
    }
    bytes = await readFile(absolute);
  } catch (error) {
    problem('document_unreadable', `cannot read ${docPath}: ${describeError(error)}`);
    return null;
  }
  try {
    // Spec 1: a document that is not valid UTF-8 is not parsed; the decoder drops a leading BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    problem('invalid_utf8', `${docPath} is not valid UTF-8; nothing was written`);
    return null;
  }
}

async function applyPlans(
  plans: readonly BlockPlan[],
  projectDir: string,
  dryRun: boolean,
  durability: 'fsync' | 'none',
  problem: (code: IngestProblem['code'], message: string) => void,
): Promise<ManifestArtifact[]> {
  const needsWorkspace = plans.some((plan) => plan.kind === 'write');
  let workspace: ConfinedRoot | null = null;
  // A dry run creates nothing, so a missing workspace/ is simply empty: every cleared block would be written.
  let workspaceMissing = false;
  if (needsWorkspace) {
    try {
      workspace = await openConfinedRoot(path.join(projectDir, 'workspace'), { create: !dryRun });
    } catch (error) {
      workspaceMissing = dryRun && error instanceof WorkspaceError && error.code === 'ENOENT';
      if (!workspaceMissing) problem('io_error', `cannot open workspace/: ${describeError(error)}`);
    }
  }
  const artifacts: ManifestArtifact[] = [];
  try {
    for (const plan of plans) {
      if (plan.kind === 'decided') {
        artifacts.push(entry(plan, plan.path, plan.code, plan.message));
        continue;
      }
      if (workspace === null && workspaceMissing) {
        artifacts.push({ ...entry(plan, plan.path, null, ''), reason: 'dry_run: would write' });
        continue;
      }
      if (workspace === null) {
        artifacts.push(
          entry(plan, plan.path, 'io_error', 'workspace/ could not be opened; see the ingest.error event'),
        );
        continue;
      }
      try {
        const outcome = await workspace.write(plan.path, plan.bytes, { durability, dryRun });
        switch (outcome.status) {
          case 'written':
            artifacts.push(entry(plan, plan.path, null, ''));
            break;
          case 'would_write':
            artifacts.push({ ...entry(plan, plan.path, null, ''), reason: 'dry_run: would write' });
            break;
          case 'unchanged':
            artifacts.push(entry(plan, plan.path, 'unchanged', 'the file already holds exactly these bytes'));
            break;
          case 'refused':
            artifacts.push(entry(plan, null, outcome.code, outcome.message));
            break;
        }
      } catch (error) {
        problem('io_error', `writing workspace/${plan.path}: ${describeError(error)}`);
        artifacts.push(entry(plan, plan.path, 'io_error', describeError(error)));
      }
    }
  } finally {
    await workspace?.close();
  }
  return artifacts.map((artifact) => ({ ...artifact, reason: redactSecrets(artifact.reason) }));
}

function entry(
  plan: BlockPlan,
  normalizedPath: string | null,
  code: ReasonCode | null,
  message: string,
): ManifestArtifact {
  return {
    index: plan.block.index,
    lang: plan.block.lang,
    declared_file: plan.block.declaredFile,
    workspace_path: normalizedPath === null ? '' : `workspace/${normalizedPath}`,
    bytes: plan.bytes.byteLength,
    sha256: createHash('sha256').update(plan.bytes).digest('hex'),
    status: code === null ? 'written' : statusOfReason(code),
    reason: code === null ? '' : `${code}: ${message}`,
  };
}

function buildManifest(
  options: IngestOptions,
  docPath: string,
  artifacts: ManifestArtifact[],
  ts: Date,
): IngestManifest {
  const count = (status: ManifestArtifact['status']): number =>
    artifacts.filter((a) => a.status === status).length;
  return {
    version: '1',
    run_id: options.runId,
    node_id: options.nodeId,
    source: { kind: options.sourceKind ?? 'cli', mode: options.mode ?? 'unknown', doc_path: docPath },
    artifacts,
    summary: {
      total_blocks: artifacts.length,
      written: count('written'),
      skipped: count('skipped'),
      rejected: count('rejected'),
    },
    ts: ts.toISOString(),
  };
}

async function writeManifest(
  projectDir: string,
  runDir: string,
  nodeId: string,
  manifest: IngestManifest,
  durability: 'fsync' | 'none',
  problem: (code: IngestProblem['code'], message: string) => void,
): Promise<string | null> {
  const relative = path.posix.join(runDir, 'manifests', `${nodeId}.json`);
  try {
    const root = await openConfinedRoot(projectDir, { create: false });
    try {
      const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
      const outcome = await root.write(relative, bytes, { durability });
      if (outcome.status === 'refused') {
        problem('io_error', `manifest not written to ${relative}: ${outcome.code}: ${outcome.message}`);
        return null;
      }
      return relative;
    } finally {
      await root.close();
    }
  } catch (error) {
    problem('io_error', `manifest not written to ${relative}: ${describeError(error)}`);
    return null;
  }
}

function levelOf(artifact: ManifestArtifact): EventLevel {
  if (artifact.status === 'written') return 'INFO';
  if (artifact.status === 'rejected') return 'ERROR';
  return /^(unchanged|superseded)\b/.test(artifact.reason) ? 'INFO' : 'WARNING';
}

function projectRelative(projectDir: string, docPath: string): string {
  const absolute = path.resolve(projectDir, docPath);
  const relative = path.relative(projectDir, absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new RangeError(
      `document ${docPath} is not inside the project ${projectDir}; pass --project or move the document`,
    );
  }
  return relative.split(path.sep).join('/');
}

function assertId(name: string, value: string): void {
  if (!runIdSchema.safeParse(value).success) {
    throw new RangeError(
      `${name} '${value}' must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ (letters, digits, . _ -)`,
    );
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function closeQuietly(events: EventLog): Promise<void> {
  try {
    await events.close();
  } catch (error) {
    process.stderr.write(`artifact-ingest: could not flush events: ${redactSecrets(describeError(error))}\n`);
  }
}
