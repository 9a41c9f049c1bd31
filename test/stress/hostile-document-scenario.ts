/**
 * Hostile documents: each of {@link hostileDocuments} ingested by the CLI (`ingest`) and sent as a
 * `workflow_advance` output to a server with ingest on, every child with a heap cap and a time cap. Counts
 * crashes, hangs, oversized results, missing manifests and a valid block not written; prints each child's time
 * and peak RSS as figures.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child-process.js';
import {
  countNodeEventLines,
  countOversized,
  judgeCallOutcome,
  judgeCliExit,
  manifestEntries,
} from './count-document-problems.js';
import type { ChildVerdict } from './count-document-problems.js';
import { hostileDocuments, VALID_CONTENT } from './hostile-documents.js';
import type { HostileDocument } from './hostile-documents.js';
import { startMcpServer } from './mcp-stdio-client.js';
import type { CallOutcome } from './mcp-stdio-client.js';
import { zero } from './stress-counts.js';
import type { Counts } from './stress-counts.js';
import {
  createProject,
  INGEST_ON,
  ONE_STEP_WORKFLOW,
  readRunEvents,
  readTextOrUndefined,
  tempRoot,
} from './stress-project.js';

/** The heap cap of every child (`--max-old-space-size`, MiB): a document must not need more. */
export const HEAP_CAP_MB = 512;

/** The time cap of every child: generous, so only a hang or a runaway parse reaches it. */
const TIME_CAP_MS = 180_000;

/** `ingest.limits.max_blocks` of the projects (the default). */
export const MAX_BLOCKS = 500;

/** The exit codes `ingest` gives without --strict (docs/cli.md): 0, also when blocks were skipped or rejected. */
const INGEST_EXIT_CODES = [0];

/** The run id every hostile document is ingested under. */
export const HOSTILE_RUN_ID = 'hostile';

/** What one child did with one document, for the counts and the figures. */
interface DocumentOutcome {
  readonly verdict: ChildVerdict;
  readonly exit: string;
  readonly seconds: number;
  readonly peakRssKb: number;
  /** Whether the ingest finished as designed, so that its manifest and valid block must be there. */
  readonly ingested: boolean;
}

/** Counts a child's verdict and, when it ingested, what it left; returns the figures row. */
async function judgeOutcome(
  counts: Counts,
  document: HostileDocument,
  via: string,
  projectDir: string,
  nodeId: string,
  outcome: DocumentOutcome,
): Promise<string[]> {
  if (outcome.verdict === 'crash') counts.crashes += 1;
  if (outcome.verdict === 'hang') counts.hangs += 1;
  const manifest = await readTextOrUndefined(manifestFile(projectDir, nodeId));
  const events = await readRunEvents(projectDir, HOSTILE_RUN_ID);
  if (outcome.ingested) await checkIngested(counts, projectDir, nodeId);
  counts.trials += 1;
  return [
    document.name,
    via,
    outcome.exit,
    outcome.seconds.toFixed(1),
    (outcome.peakRssKb / 1024).toFixed(0),
    String(manifestEntries(manifest) ?? '-'),
    String(countNodeEventLines(events, nodeId)),
  ];
}

function manifestFile(projectDir: string, nodeId: string): string {
  return path.join(projectDir, '.agent/runs', HOSTILE_RUN_ID, 'manifests', `${nodeId}.json`);
}

/**
 * What a document ingested as designed must leave in run `hostile`: its manifest (else `missingManifests`), no
 * more than max_blocks + 1 entries and max_blocks + a few event lines (else `oversized`), and the valid block
 * written (else `lostBlocks`).
 */
export async function checkIngested(counts: Counts, projectDir: string, nodeId: string): Promise<void> {
  const manifest = await readTextOrUndefined(manifestFile(projectDir, nodeId));
  if (manifest === undefined) counts.missingManifests += 1;
  counts.oversized += countOversized(
    manifest,
    await readRunEvents(projectDir, HOSTILE_RUN_ID),
    nodeId,
    MAX_BLOCKS,
  );
  const valid = await readTextOrUndefined(path.join(projectDir, 'workspace/valid.txt'));
  if (valid !== VALID_CONTENT) counts.lostBlocks += 1;
}

/** `artifact-ingest ingest` of the document as docs/hostile.md. */
async function ingestByCli(projectDir: string, document: HostileDocument): Promise<DocumentOutcome> {
  await mkdir(path.join(projectDir, 'docs'), { recursive: true });
  await writeFile(path.join(projectDir, 'docs/hostile.md'), document.text);
  const exit = await runCli(
    [
      'ingest',
      'docs/hostile.md',
      '--project',
      projectDir,
      '--run-id',
      HOSTILE_RUN_ID,
      '--node-id',
      'hostile',
    ],
    { heapMb: HEAP_CAP_MB, capMs: TIME_CAP_MS, sampleRss: true },
  );
  const verdict = judgeCliExit(exit, INGEST_EXIT_CODES);
  return {
    verdict,
    exit: exit.capped ? 'time cap' : (exit.signal ?? `exit ${String(exit.code)}`),
    seconds: exit.seconds,
    peakRssKb: exit.peakRssKb,
    ingested: verdict === 'ok',
  };
}

/** The document as the output of `workflow_advance` of a one-step workflow, to a fresh server. */
async function ingestByMcp(projectDir: string, document: HostileDocument): Promise<DocumentOutcome> {
  await createProject(projectDir, { one: ONE_STEP_WORKFLOW });
  const server = startMcpServer(projectDir, { env: INGEST_ON, heapMb: HEAP_CAP_MB, sampleRss: true });
  const failed = (outcome: Exclude<CallOutcome, { kind: 'result' }>, what: string): DocumentOutcome => ({
    verdict: judgeCallOutcome(outcome.kind),
    exit: outcome.kind === 'capped' ? `time cap at ${what}` : `died (${outcome.exit}) at ${what}`,
    seconds: outcome.ms / 1000,
    peakRssKb: server.peakRssKb(),
    ingested: false,
  });
  try {
    const ready = await server.initialize();
    if (ready.kind !== 'result') return failed(ready, 'initialize');
    const start = await server.call('workflow_start', { workflow: 'one', run_id: HOSTILE_RUN_ID });
    if (start.kind !== 'result') return failed(start, 'workflow_start');
    const advance = await server.call(
      'workflow_advance',
      { run_id: HOSTILE_RUN_ID, output: document.text },
      TIME_CAP_MS,
    );
    if (advance.kind !== 'result') return failed(advance, 'workflow_advance');
    // A refusal is an answer the agent can act on, not a crash; nothing was ingested then.
    return {
      verdict: 'ok',
      exit: advance.isError ? `refused: ${advance.text.slice(0, 60)}` : 'answered',
      seconds: advance.ms / 1000,
      peakRssKb: server.peakRssKb(),
      ingested: !advance.isError,
    };
  } finally {
    await server.close();
  }
}

/** The hostile-document scenario: the first `count` documents, each by the CLI and over MCP. */
export async function hostileDocumentRuns(count: number): Promise<Counts> {
  const counts = zero(['crashes', 'hangs', 'oversized', 'missingManifests', 'lostBlocks']);
  const root = await tempRoot('hostile');
  const started = performance.now();
  const rows: string[][] = [];
  const documents = hostileDocuments().slice(0, count);
  for (const [index, document] of documents.entries()) {
    const cliProject = path.join(root, `cli-${String(index)}`);
    rows.push(
      await judgeOutcome(
        counts,
        document,
        'cli',
        cliProject,
        'hostile',
        await ingestByCli(cliProject, document),
      ),
    );
    await rm(cliProject, { recursive: true, force: true });
    const mcpProject = path.join(root, `mcp-${String(index)}`);
    rows.push(
      await judgeOutcome(
        counts,
        document,
        'mcp',
        mcpProject,
        'write',
        await ingestByMcp(mcpProject, document),
      ),
    );
    await rm(mcpProject, { recursive: true, force: true });
  }
  counts.detail = `${String(documents.length)} documents x 2`;
  counts.figures = {
    header: ['document', 'via', 'end', 'seconds', 'peak RSS MiB', 'manifest entries', 'event lines'],
    rows,
  };
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}
