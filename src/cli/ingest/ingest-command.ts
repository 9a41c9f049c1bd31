import path from 'node:path';
import type FastGlob from 'fast-glob';
import { openIngestRecords, recordFailureEvents } from '../../artifacts/index.js';
import type { RecordFailure } from '../../artifacts/index.js';
import { loadProjectConfig } from '../../config/index.js';
import { defaultCliRunId, deriveNodeId, ingestModeSchema, runIngest } from '../../ingest/index.js';
import { lazyModule, parseNodeId, parseRunId } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { IngestManifest, IngestMode, IngestProblem, IngestResult } from '../../ingest/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { progressLine } from '../render/index.js';
import { readStdinDocument, saveStdinDocument } from './read-stdin-document.js';
import type { StdinDocument } from './read-stdin-document.js';
import { resolveProject } from '../resolve-project.js';
import { renderIngestReport } from './render-ingest-report.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';
import { quickFs } from '../../workspace/index.js';

/** fast-glob loads only when an argument is a glob. */
const fastGlob = lazyModule<typeof FastGlob>('fast-glob');

/** Help text of `artifact-ingest ingest`. */
export const INGEST_HELP = `Usage: artifact-ingest ingest [PATH|GLOB ...] [options]
       artifact-ingest ingest - --doc-path docs/NAME.md [options]

Extract the \`\`\`<lang> file=<path> blocks of markdown documents into workspace/,
record a manifest per document and append events to the run's events.jsonl.
Each file placed is recorded as an artifact (.agent/runs/<run_id>/artifacts.jsonl).

Paths and globs are relative to the project directory. With none, docs/**/*.md is ingested.
With -, one document is read from standard input (at most ingest.limits.max_document_bytes),
saved as --doc-path and ingested; input that is empty or too large is refused, nothing written.

Options:
  --doc-path P    with -: where the document is saved, a file under docs/ or audits/
  --project DIR   project root holding docs/, workspace/ and .agent/ (default: current directory)
  --run-id ID     run to record under (default: cli-<UTC time>)
  --node-id ID    node id for the manifest (one document only; default: derived from the path)
  --mode M        single | self_critique | team | unknown (default: unknown)
  --dry-run       judge every block, write nothing, print what would happen
  --strict        exit 1 when a block is rejected or an error occurs (fail closed, for CI)
  --json          print the manifest (one document) or an array of manifests on stdout; a document
                  that could not be ingested has "error": {"code", "message"} in its entry
  -h, --help      show this help

Exit codes: 0 done (also when blocks were skipped or rejected, or the records or events could not
be written: each is reported), 1 --strict and something was rejected or failed (a block, a
manifest, the records, the events), 2 usage or configuration error.

Examples:
  artifact-ingest ingest
  artifact-ingest ingest docs/plan.md --run-id run-42 --node-id plan
  artifact-ingest ingest 'docs/tasks/*.md' --project ./my-project --dry-run
  my-agent --task plan | artifact-ingest ingest - --doc-path docs/plan.md
`;

const GLOB_CHARS = /[*?[\]{}!]/;
/** The PATH that stands for standard input. */
const STDIN = '-';

/** Runs `artifact-ingest ingest`; returns the exit code. */
export async function ingestCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('ingest', args, {
    project: { type: 'string' },
    'run-id': { type: 'string' },
    'node-id': { type: 'string' },
    mode: { type: 'string' },
    'dry-run': { type: 'boolean' },
    strict: { type: 'boolean' },
    json: { type: 'boolean' },
    'doc-path': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(INGEST_HELP);
    return 0;
  }
  const fromStdin = checkStdinArgs(positionals, values['doc-path']);

  const projectDir = await resolveProject(values.project, 'ingest', io.cwd);
  const runIdText = values['run-id'];
  const runId = runIdText === undefined ? defaultCliRunId() : parseRunId(runIdText, '--run-id');
  const mode = parseMode(values.mode);
  const config = await loadProjectConfig(projectDir);
  const dryRun = values['dry-run'] === true;
  const stdinDocument =
    fromStdin === undefined
      ? undefined
      : await readStdinDocument(fromStdin, io, config.ingest.limits.maxDocumentBytes);
  const documents =
    stdinDocument === undefined ? await findDocuments(projectDir, positionals) : [stdinDocument.docPath];
  const nodeIds = assignNodeIds(documents, values['node-id']);
  // Bytes that are not UTF-8 are not saved: the ingest records one invalid_utf8 event and writes nothing.
  if (stdinDocument?.text !== undefined) {
    await saveStdinDocument(projectDir, stdinDocument, { dryRun, durability: config.ingest.durability });
  }
  const strict = values.strict === true || config.ingest.failMode === 'closed';

  const progress = progressLine(io.stderr);
  const results: IngestResult[] = [];
  const recordFailures = recordFailureReporter(projectDir, runId, strict, io);
  const records = dryRun
    ? undefined
    : openIngestRecords({
        projectDir,
        runId,
        durability: config.ingest.durability,
        onFailure: recordFailures.report,
      });
  try {
    for (const [index, docPath] of documents.entries()) {
      if (documents.length > 1) progress.update(index, documents.length, docPath);
      const nodeId = nodeIds[index] ?? deriveNodeId(docPath);
      const result = await runIngest({
        projectDir,
        docPath,
        runId,
        nodeId,
        sourceKind: 'cli',
        mode,
        dryRun,
        durability: config.ingest.durability,
        limits: config.ingest.limits,
        parser: config.ingest.parser,
        ...stdinContent(stdinDocument),
        // Recorded under the workspace lock, right after the renames, so concurrent ingests never drift.
        ...(records === undefined
          ? {}
          : { onPlaced: (placed) => records.recordIngested(nodeId, 'cli', placed, docPath) }),
      });
      results.push(result);
    }
  } finally {
    await records?.close();
    await recordFailures.close();
  }
  progress.clear();

  if (values.json === true) {
    const entries = results.map(jsonEntry);
    io.stdout.write(`${JSON.stringify(entries.length === 1 ? entries[0] : entries, null, 2)}\n`);
  } else {
    io.stdout.write(renderIngestReport(results, { runId, dryRun, capRows: io.stdout.isTTY === true }));
  }
  for (const result of results) {
    for (const problem of result.problems) {
      io.stderr.write(
        `artifact-ingest: ${result.manifest.source.doc_path}: ${problem.code}: ${problem.message}\n`,
      );
    }
  }
  if (strict && recordFailures.count() > 0) {
    io.stderr.write(
      `artifact-ingest: --strict: ${String(recordFailures.count())} recording failed: the files are in workspace/ but not in the records of run ${runId}; make room in .agent/ (or make it writable), then run the same ingest again to record them\n`,
    );
  }
  return strict && (results.some((result) => result.failed) || recordFailures.count() > 0) ? 1 : 0;
}

/**
 * The `--doc-path` of `ingest -`, or undefined when the documents are PATHs and globs; a `-` among other PATHs,
 * a `-` without `--doc-path`, or a `--doc-path` without `-` is a usage error.
 */
function checkStdinArgs(positionals: readonly string[], docPath: string | undefined): string | undefined {
  if (!positionals.includes(STDIN)) {
    if (docPath === undefined) return undefined;
    throw new UsageError(
      `--doc-path names where the document read from standard input is saved; use it with -: ingest - --doc-path ${docPath}`,
      'ingest',
    );
  }
  if (positionals.length > 1) {
    throw new UsageError(
      '- reads one document from standard input; give no other PATH or GLOB with it',
      'ingest',
    );
  }
  if (docPath === undefined || docPath === '') {
    throw new UsageError(
      'ingest - needs --doc-path to say where the document read from standard input is saved, e.g. --doc-path docs/from-stdin.md',
      'ingest',
    );
  }
  return docPath;
}

/** What `runIngest` judges for the document read from stdin: its bytes as read, and their text when valid. */
function stdinContent(document: StdinDocument | undefined): { content?: Uint8Array; text?: string } {
  if (document === undefined) return {};
  return document.text === undefined
    ? { content: document.bytes }
    : { content: document.bytes, text: document.text };
}

/**
 * Reports each recording that failed (fail-open: the ingest goes on): on stderr, as an error under --strict,
 * and as an `artifacts.error` event in the run's events.jsonl, as a graph run reports it.
 */
function recordFailureReporter(
  projectDir: string,
  runId: RunId,
  strict: boolean,
  io: CliIo,
): { report: (failure: RecordFailure) => void; count: () => number; close: () => Promise<void> } {
  let failures = 0;
  // An event the log cannot take either (the same full or read-only .agent/) is already said on stderr.
  const events = recordFailureEvents({ project: projectDir, runId });
  return {
    report: (failure) => {
      failures += 1;
      io.stderr.write(`artifact-ingest: ${strict ? 'error' : 'warning'}: ${failure.message}\n`);
      events.report(failure);
    },
    count: () => failures,
    close: events.close,
  };
}

/**
 * One `--json` entry: the manifest v1 object, plus `error` (the first problem) for a document that could not
 * be ingested as a whole (invalid UTF-8, unreadable, too large, too complex), so a batch shows which failed.
 */
function jsonEntry(result: IngestResult): IngestManifest | (IngestManifest & { error: IngestProblem }) {
  const [first] = result.problems;
  return first === undefined
    ? result.manifest
    : { ...result.manifest, error: { code: first.code, message: first.message } };
}

function parseMode(mode: string | undefined): IngestMode {
  if (mode === undefined) return 'unknown';
  const parsed = ingestModeSchema.safeParse(mode);
  if (!parsed.success) {
    throw new UsageError(
      `--mode '${mode}' is not a mode; use one of ${ingestModeSchema.options.join(', ')}`,
      'ingest',
    );
  }
  return parsed.data;
}

async function findDocuments(projectDir: string, inputs: readonly string[]): Promise<string[]> {
  const patterns = inputs.length === 0 ? ['docs/**/*.md'] : inputs;
  const found = new Set<string>();
  for (const input of patterns) {
    if (GLOB_CHARS.test(input)) {
      const matches = await fastGlob()(input, {
        cwd: projectDir,
        onlyFiles: true,
        followSymbolicLinks: false,
        dot: false,
      });
      if (matches.length === 0 && inputs.length > 0) {
        throw new UsageError(
          `no documents match '${input}' under ${projectDir}; globs are relative to --project`,
          'ingest',
        );
      }
      for (const match of matches.sort()) found.add(match);
      continue;
    }
    const absolute = path.resolve(projectDir, input);
    const relative = path.relative(projectDir, absolute);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
      throw new UsageError(
        `${input} is outside the project ${projectDir}; pass --project to name the project root`,
        'ingest',
      );
    }
    const info = await quickFs.stat(absolute).catch(() => null);
    if (info === null || !info.isFile()) {
      throw new UsageError(
        `${input} is not a file under ${projectDir}; paths are relative to --project`,
        'ingest',
      );
    }
    found.add(relative.split(path.sep).join('/'));
  }
  if (found.size === 0) {
    throw new UsageError(
      `no documents match docs/**/*.md under ${projectDir}; pass a path, a glob or --project`,
      'ingest',
    );
  }
  return [...found];
}

function assignNodeIds(documents: readonly string[], nodeId: string | undefined): NodeId[] {
  if (nodeId !== undefined) {
    if (documents.length > 1) {
      throw new UsageError(
        `--node-id names one node, but ${documents.length} documents were given; drop --node-id to derive ids`,
        'ingest',
      );
    }
    return [parseNodeId(nodeId, '--node-id')];
  }
  const ids = documents.map(deriveNodeId);
  const seen = new Map<string, string>();
  documents.forEach((doc, index) => {
    const id = ids[index] ?? '';
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      throw new UsageError(
        `${earlier} and ${doc} both derive node id '${id}'; ingest them separately with --node-id`,
        'ingest',
      );
    }
    seen.set(id, doc);
  });
  return ids;
}
