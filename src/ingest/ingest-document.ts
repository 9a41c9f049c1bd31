import path from 'node:path';
import { memoryEventLog, openRunEventLog } from '../events/index.js';
import type { EventLevel, EventLog } from '../events/index.js';
import type { applyPlans, IngestedContent } from './apply-plans.js';
import { blockEventFields, candidatesOf, eventLevelOf, manifestArtifactOf } from './block-outcome.js';
import type { BlockOutcome } from './block-outcome.js';
import { DEFAULT_INGEST_LIMITS, defaultMaxParseMs } from '../config/index.js';
import type { IngestLimits } from '../config/index.js';
import type { FenceParser } from '../project/index.js';
import { ingestManifestSchema } from './ingest-manifest.js';
import type { IngestManifest, IngestMode, SourceKind } from './ingest-manifest.js';
import { describeError, parseNodeId, parseRunId, redactSecrets, runEventsPath } from '../project/index.js';
import { openProject } from '../store/index.js';
import type { Project, ProjectRef } from '../store/index.js';
import { startIngestSpan } from '../telemetry/index.js';
import type { IngestSpanEnd } from '../telemetry/index.js';
import { findSecretInPath } from '../workspace/index.js';
import type { NodeId, RunId } from '../project/index.js';
import type { IngestProblem, ReportProblem } from './ingest-problem.js';
import { openIngestRoots } from './ingest-roots.js';
import type { IngestRoots, SharedIngestRoots } from './ingest-roots.js';
import { parseFencesIsolated } from './isolated-parse/index.js';
import { limitCandidates, omittedBlocksOutcome } from './limit-candidates.js';
import type { OmittedBlocks } from './block-outcome.js';
import { planBlocks, settlePlans } from './plan-blocks.js';
import type { BlockPlan } from './plan-blocks.js';
import { placeBlocks } from './place-blocks.js';
import { decodeDocument, readDocument, takeDocumentText } from './read-document.js';
import { writeManifest } from './write-manifest.js';

/** Options for one document's ingest. */
export interface IngestOptions {
  /**
   * The project: a folder holding the documents, workspace/ and .agent/ (its files store), or a `Project`, whose
   * `dir` holds the documents and workspace/ and whose store keeps the manifest and the events.
   */
  readonly projectDir: ProjectRef;
  /** The document, relative to the project root (or absolute inside it). */
  readonly docPath: string;
  /**
   * The library's edge: a plain string is checked here, once ({@link InvalidIdError} when it does not
   * match), and travels as a `RunId` from then on; an already parsed `RunId` passes as it is.
   */
  readonly runId: string;
  readonly nodeId: string;
  /**
   * The document's bytes, as its writer just wrote them: the file is then not read. The same rules apply
   * as to a read document (max_document_bytes, strict UTF-8, a leading BOM dropped).
   */
  readonly content?: Uint8Array;
  /**
   * With `content`: its UTF-8 decoding, when the writer holds it already, so a large document is not decoded (and
   * held) twice. `content` is still what max_document_bytes counts; a leading BOM is dropped as from bytes.
   */
  readonly text?: string;
  /** Roots to write through, shared with other ingests (their opener closes them); by default this ingest opens its own. */
  readonly roots?: IngestRoots;
  readonly sourceKind?: SourceKind;
  readonly mode?: IngestMode;
  /** Judge everything, write nothing: no workspace file, no manifest, no event line. */
  readonly dryRun?: boolean;
  /** 'open' (default): problems are recorded, never thrown. 'closed': {@link ingestDocument} throws on them. */
  readonly failMode?: 'open' | 'closed';
  readonly durability?: 'fsync' | 'none';
  /** Unset limits take their defaults; `maxParseMs`'s follows the parser ({@link defaultMaxParseMs}). */
  readonly limits?: Partial<IngestLimits>;
  /** The block parser (`ingest.parser`): the scanner by default, micromark as the reference path. */
  readonly parser?: FenceParser;
  /** An event log to append to instead of opening the run's events.jsonl (the caller closes it). */
  readonly events?: EventLog;
  /** Clock, for reproducible manifests in tests. */
  readonly now?: () => Date;
  /**
   * Records the files this ingest placed (empty when none); run under the workspace lock, right after the last
   * rename, so the last record of a path is always that of its last writer. The caller's fail-open recording.
   */
  readonly onPlaced?: (contents: readonly IngestedContent[]) => Promise<void>;
  /** How long to wait for the workspace lock held by another ingest (default 120 s). */
  readonly lockWaitMs?: number;
}

export type { IngestProblem } from './ingest-problem.js';
export type { IngestedContent } from './apply-plans.js';
export type { BlockOutcome, OmittedBlocks } from './block-outcome.js';

/** Everything one ingest produced: the manifest, where it was written, and the problems met on the way. */
export interface IngestResult {
  readonly manifest: IngestManifest;
  /** Every candidate block's outcome in document order, its reason as `code` and `message`; the manifest's entries are made from these. */
  readonly blocks: readonly BlockOutcome[];
  /** Project-relative path of the written manifest, or null (dry run, or the manifest could not be written). */
  readonly manifestPath: string | null;
  readonly problems: readonly IngestProblem[];
  /** True when a block was rejected or a problem occurred: what `failMode: 'closed'` turns into failure. */
  readonly failed: boolean;
  /**
   * The bytes each manifest entry placed in the workspace (written, or already there: skipped as
   * `unchanged`), in document order, for the layer above to record; empty on a dry run.
   */
  readonly contents: readonly IngestedContent[];
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

/**
 * Ingests one document, never throwing for anything but misuse (bad ids, a document outside the project), in a
 * live span (a no-op unless the host registered an OpenTelemetry SDK) with its counts and one event per file.
 */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  return runIngestWith(options, {});
}

/**
 * How an ingest that already read and wrote some of its blocks (the streaming ingest) finishes the document: the
 * document's plans (`planned`: each block's own plan, settled here by the whole-document rules, instead of the
 * text parsed again), carried out by `applyPlans` (under the same lock and events as always), and `problems`
 * reported first.
 */
export interface IngestCompletion {
  readonly planned?: {
    /** Each candidate within `max_blocks` judged alone ({@link planBlock}), in document order. */
    readonly plans: readonly BlockPlan[];
    readonly omitted: OmittedBlocks | undefined;
  };
  readonly applyPlans?: typeof applyPlans;
  readonly problems?: readonly IngestProblem[];
}

/** {@link runIngest}, its placement and leading problems as `completion` says. */
export async function runIngestWith(
  options: IngestOptions,
  completion: IngestCompletion,
): Promise<IngestResult> {
  const span = startIngestSpan({
    document: spanDocumentOf(options),
    runId: options.runId,
    nodeId: options.nodeId,
  });
  try {
    const result = await ingestOnce(options, completion);
    span.end(ingestSpanEndOf(result));
    return result;
  } catch (error) {
    span.fail(error);
    throw error;
  }
}

async function ingestOnce(options: IngestOptions, completion: IngestCompletion): Promise<IngestResult> {
  const { project, ownStore } = projectOfOptions(options.projectDir);
  const projectDir = path.resolve(project.dir);
  const docPath = projectRelative(projectDir, options.docPath);
  const runId = parseRunId(options.runId, 'runId');
  const nodeId = parseNodeId(options.nodeId, 'nodeId');
  const limits = {
    ...DEFAULT_INGEST_LIMITS,
    maxParseMs: defaultMaxParseMs(options.parser),
    ...options.limits,
  };
  const dryRun = options.dryRun === true;
  const durability = options.durability ?? 'fsync';
  const problems: IngestProblem[] = [];
  // Roots handed in belong to the caller; roots opened here are closed here.
  const { roots, ownRoots } = rootsOf(options, projectDir, dryRun);

  const events = (await openRunEvents(options, runId, project, dryRun, problems)).child({
    run_id: runId,
    node_id: nodeId,
    doc_path: docPath,
  });
  const report: ReportProblem = (code, message) => {
    const redacted = redactSecrets(message);
    problems.push({ code, message: redacted });
    events.write('ERROR', 'ingest.error', { code, message: redacted });
  };

  for (const problem of completion.problems ?? []) report(problem.code, problem.message);
  let blocks: BlockOutcome[] = [];
  let contents: IngestedContent[] = [];
  // A document whose path holds a secret is refused whole: its manifest would be named by the node id derived
  // from that path, and every record would carry it (docs/security.md, "Secrets").
  const secret = findSecretInPath(docPath);
  if (secret !== undefined) {
    report(
      'secret_in_path',
      `the document path holds what looks like a credential (${secret}); nothing was written. Rename the document`,
    );
  }
  try {
    const planned =
      secret !== undefined
        ? null
        : await planDocument(options, completion, { projectDir, docPath }, limits, report);
    if (planned !== null) {
      const { plans, omitted } = planned;
      ({ blocks, contents } = await placeBlocks(plans, {
        ...(completion.applyPlans === undefined ? {} : { applyPlans: completion.applyPlans }),
        project,
        events,
        apply: { roots, dryRun, durability },
        ...(options.onPlaced === undefined ? {} : { onPlaced: options.onPlaced }),
        ...(options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs }),
        report,
      }));
      // Past max_blocks, one entry stands for every other candidate: a million near-misses cost one line.
      if (omitted !== undefined) blocks = [...blocks, omittedBlocksOutcome(omitted, plans.length)];
    }
  } catch (error) {
    report('internal_error', describeError(error));
  }
  // One append for the document's block events, not one per block.
  events.writeAll(
    blocks.map((block) => ({
      level: eventLevelOf(block),
      event: 'ingest.block',
      fields: blockEventFields(block),
    })),
  );

  const manifest = buildManifest(
    options,
    { runId, nodeId },
    docPath,
    blocks,
    (options.now ?? (() => new Date()))(),
  );
  const checked = ingestManifestSchema.safeParse(manifest);
  if (!checked.success) report('schema_error', checked.error.message);
  // Spec 1 (decided): an undecodable document writes nothing, not even a manifest; nor does a secret path.
  const undecodable = problems.some(
    (problem) => problem.code === 'invalid_utf8' || problem.code === 'secret_in_path',
  );
  const manifestPath =
    dryRun || !checked.success || undecodable
      ? null
      : await writeManifest(project.store, manifest, durability, report);
  if (ownRoots !== undefined) await closeRoots(ownRoots, report);
  if (ownStore) await closeStore(project, report);

  const { summary } = manifest;
  const noneValid =
    summary.total_blocks > 0 && summary.written === 0 && blocks.every((block) => block.code !== 'unchanged');
  const level: EventLevel = problems.length > 0 ? 'ERROR' : noneValid ? 'WARNING' : 'INFO';
  events.write(level, 'ingest.summary', { ...summary, manifest_path: manifestPath ?? '', dry_run: dryRun });
  if (options.events === undefined) await closeQuietly(events, problems);

  return {
    manifest,
    blocks,
    manifestPath,
    problems,
    failed: problems.length > 0 || summary.rejected > 0,
    contents,
  };
}

/**
 * The document as text under the ingest's rules (max_document_bytes, strict UTF-8, no leading BOM), or null after
 * reporting why not; its bytes are not kept past this call (a 16 MiB document is held once while it is parsed).
 */
async function documentText(
  options: IngestOptions,
  projectDir: string,
  docPath: string,
  limits: IngestLimits,
  report: ReportProblem,
): Promise<string | null> {
  const { content, text } = options;
  if (content !== undefined && text !== undefined)
    return takeDocumentText(docPath, content, text, limits, report);
  const bytes = content ?? (await readDocument(projectDir, docPath, limits, report));
  return bytes === null ? null : decodeDocument(docPath, bytes, limits, report);
}

/** The document's plans: those already made (`completion.planned`), else of its text, read and parsed. */
async function planDocument(
  options: IngestOptions,
  completion: IngestCompletion,
  { projectDir, docPath }: { readonly projectDir: string; readonly docPath: string },
  limits: IngestLimits,
  report: ReportProblem,
): Promise<{ plans: BlockPlan[]; omitted: OmittedBlocks | undefined } | null> {
  if (completion.planned !== undefined) {
    return { plans: settlePlans(completion.planned.plans, limits), omitted: completion.planned.omitted };
  }
  const text = await documentText(options, projectDir, docPath, limits, report);
  return text === null ? null : planText(text, docPath, limits, options.parser, report);
}

async function planText(
  text: string,
  docPath: string,
  limits: IngestLimits,
  parser: FenceParser | undefined,
  report: ReportProblem,
): Promise<{ plans: BlockPlan[]; omitted: OmittedBlocks | undefined }> {
  // In a worker terminated at the deadline: a hostile document cannot stall the run or the CLI. The worker keeps
  // only the first max_blocks candidates and counts the rest, so its answer is bounded whatever the document.
  const scan = await parseFencesIsolated(text, {
    timeLimitMs: limits.maxParseMs,
    parser,
    maxCandidates: limits.maxBlocks,
  });
  if (scan.timedOut === true) {
    report(
      'too_complex',
      `${docPath} took over max_parse_ms (${limits.maxParseMs} ms) to parse; nothing was written`,
    );
    return { plans: [], omitted: undefined };
  }
  const { blocks, omitted } = limitCandidates(scan, limits.maxBlocks);
  return { plans: planBlocks(blocks, limits), omitted };
}

async function openRunEvents(
  options: IngestOptions,
  runId: RunId,
  project: Project,
  dryRun: boolean,
  problems: IngestProblem[],
): Promise<EventLog> {
  if (options.events !== undefined) return options.events;
  if (dryRun) return memoryEventLog();
  const eventsPath = runEventsPath(runId);
  try {
    return await openRunEventLog(project, runId);
  } catch (error) {
    // Fail-open (spec 6): without an event log the problem still reaches the caller and stderr.
    const message = redactSecrets(`cannot open ${eventsPath}: ${describeError(error)}`);
    problems.push({ code: 'io_error', message });
    process.stderr.write(`artifact-ingest: ${message}\n`);
    return memoryEventLog();
  }
}

function buildManifest(
  options: IngestOptions,
  ids: { readonly runId: RunId; readonly nodeId: NodeId },
  docPath: string,
  blocks: readonly BlockOutcome[],
  ts: Date,
): IngestManifest {
  // Summary counts are of candidates: the entry for the candidates past max_blocks counts each of them.
  const count = (status?: BlockOutcome['status']): number =>
    blocks.reduce(
      (sum, block) => (status === undefined || block.status === status ? sum + candidatesOf(block) : sum),
      0,
    );
  return {
    version: '1',
    run_id: ids.runId,
    node_id: ids.nodeId,
    source: {
      kind: options.sourceKind ?? 'cli',
      mode: options.mode ?? 'unknown',
      // Only a refused document's path can hold a secret; the result it returns shows it redacted.
      doc_path: redactSecrets(docPath),
    },
    artifacts: blocks.map(manifestArtifactOf),
    summary: {
      total_blocks: count(),
      written: count('written'),
      skipped: count('skipped'),
      rejected: count('rejected'),
    },
    ts: ts.toISOString(),
  };
}

function rootsOf(
  options: IngestOptions,
  projectDir: string,
  dryRun: boolean,
): { roots: IngestRoots; ownRoots?: SharedIngestRoots } {
  if (options.roots !== undefined) return { roots: options.roots };
  const ownRoots = openIngestRoots(projectDir, { dryRun });
  return { roots: ownRoots, ownRoots };
}

/** The document's project-relative path for the span's name, or the path as given when it is not in the project. */
function spanDocumentOf(options: IngestOptions): string {
  const { projectDir } = options;
  try {
    return projectRelative(
      path.resolve(typeof projectDir === 'string' ? projectDir : projectDir.dir),
      options.docPath,
    );
  } catch {
    return options.docPath;
  }
}

/** What the ingest span keeps of a result: the counts, each file (built only when recorded), the first problem. */
function ingestSpanEndOf(result: IngestResult): IngestSpanEnd {
  const { summary } = result.manifest;
  const problem = result.problems[0];
  return {
    found: summary.total_blocks,
    written: summary.written,
    skipped: summary.skipped,
    rejected: summary.rejected,
    files: () =>
      result.blocks.map((block) => ({
        path: block.workspacePath === '' ? block.declaredFile : block.workspacePath,
        sha256: block.sha256,
        bytes: block.bytes,
        status: block.code === 'unchanged' ? 'unchanged' : block.status,
        ...(block.code === null || block.code === 'unchanged' ? {} : { reason: block.code }),
      })),
    ...(problem === undefined ? {} : { problem: `${problem.code}: ${problem.message}` }),
  };
}

/**
 * The project a caller named, its folder resolved: a folder path opens its files store for this ingest alone
 * (`ownStore`: closed when the ingest ends); a `Project`'s store is its owner's.
 */
function projectOfOptions(ref: ProjectRef): { project: Project; ownStore: boolean } {
  return typeof ref === 'string'
    ? { project: openProject(path.resolve(ref)), ownStore: true }
    : { project: ref, ownStore: false };
}

async function closeStore(project: Project, report: ReportProblem): Promise<void> {
  try {
    await project.store.close();
  } catch (error) {
    report('io_error', `could not close the store ${project.store.location}: ${describeError(error)}`);
  }
}

async function closeRoots(roots: { close(): Promise<void> }, report: ReportProblem): Promise<void> {
  try {
    await roots.close();
  } catch (error) {
    report('io_error', `could not close workspace/: ${describeError(error)}`);
  }
}

/**
 * The document's path relative to the project, `/`-separated; a RangeError ending in `remedy` when it is not
 * inside the project (misuse by the caller).
 */
export function projectRelative(
  projectDir: string,
  docPath: string,
  remedy = 'pass --project or move the document',
): string {
  const relative = path.relative(projectDir, path.resolve(projectDir, docPath));
  if (
    relative === '' ||
    relative === '..' ||
    relative.startsWith(`..${path.sep}`) ||
    path.isAbsolute(relative)
  ) {
    throw new RangeError(`document ${docPath} is not inside the project ${projectDir}; ${remedy}`);
  }
  return relative.split(path.sep).join('/');
}

/** Closes the log this ingest opened; events it could not write are a problem of the ingest (fail-open). */
async function closeQuietly(events: EventLog, problems: IngestProblem[]): Promise<void> {
  try {
    await events.close();
  } catch (error) {
    // Too late for an ingest.error event: the result carries it, and the CLI prints it (--strict fails on it).
    problems.push({
      code: 'io_error',
      message: redactSecrets(`events were not all written: ${describeError(error)}`),
    });
  }
}
