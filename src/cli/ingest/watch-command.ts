import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadProjectConfig } from '../../config/index.js';
import { parseFencesIsolated } from '../../ingest/index.js';
import { AGENT_DIR, describeError, parseRunId, watchStatePath, WORKSPACE_DIR } from '../../project/index.js';
import { lstatOrMissing, watchFolder } from '../../workspace/index.js';
import type { FolderWatch } from '../../workspace/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { UsageError } from '../usage-error.js';
import { ingestWatchedDocument } from './ingest-watched-document.js';
import type { WatchCounts, WatchSession } from './ingest-watched-document.js';
import { trackSettling } from './settle-documents.js';
import { openWatchState } from './watch-state.js';

/** Help text of `artifact-ingest watch`. */
export const WATCH_HELP = `Usage: artifact-ingest watch [DIR] --run-id ID [options]

Watch DIR (default docs/) for markdown documents written by a host runtime in any language, and ingest
each one into workspace/ once it has settled: renamed into place, or unchanged for the quiet period.
Each content version is ingested exactly once: .agent/watch/<run_id>.json keeps the sha256 last
ingested per document, so a restart does not ingest an unchanged document again (nor rewrite its
manifest). The node id derives from the path, as for ingest (docs/a.md -> a). Files and folders whose
names start with a dot (a writer's temp file) and files not ending in .md are never ingested.

One line per ingested document on stdout. Ctrl-C (SIGINT or SIGTERM) stops after the document being
ingested and prints a summary line (on stdout; on stderr with --json).

Options:
  --run-id ID     run to record under (required: the same id on a restart finds what was ingested)
  --once          ingest what is pending (every document not yet ingested in this version) and exit
  --json          one JSON object per ingested document per line: doc_path, node_id, run_id, sha256,
                  summary (total_blocks, written, skipped, rejected), manifest_path, and error when the
                  document could not be ingested
  --quiet-ms N    how long a document must stay unchanged to count as settled (default 300, 0-600000)
  --project DIR   project root holding docs/, workspace/ and .agent/ (default: current directory)
  -h, --help      show this help

Exit codes: 0 stopped or done (documents that could not be ingested are reported on stderr), 2 usage
or configuration error.

Examples:
  artifact-ingest watch --run-id host-run-7
  artifact-ingest watch docs/answers --run-id nightly --once --json
`;

const DEFAULT_QUIET_MS = 300;
const MAX_QUIET_MS = 600_000;

/** Runs `artifact-ingest watch`; returns the exit code. */
export async function watchCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('watch', args, {
    project: { type: 'string' },
    'run-id': { type: 'string' },
    once: { type: 'boolean' },
    json: { type: 'boolean' },
    'quiet-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(WATCH_HELP);
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `watch takes one DIR, got ${String(positionals.length)}: ${positionals.join(' ')}; run one watch per folder`,
      'watch',
    );
  }
  const runIdText = values['run-id'];
  if (runIdText === undefined) {
    throw new UsageError(
      'watch needs --run-id: the run the documents are ingested into, and the same id on a restart finds what was already ingested, e.g. --run-id host-run-1',
      'watch',
    );
  }
  const runId = parseRunId(runIdText, '--run-id');
  const quietMs = parseQuietMs(values['quiet-ms']);
  const projectDir = await resolveProject(values.project, 'watch', io.cwd);
  const dir = await resolveWatchedDir(projectDir, positionals[0] ?? 'docs');
  const config = await loadProjectConfig(projectDir);
  const state = await openWatchState(projectDir, runId, config.ingest.durability);
  const once = values.once === true;
  const json = values.json === true;

  const tracker = trackSettling(projectDir, dir, quietMs);
  const counts: WatchCounts = { ingested: 0, unchanged: 0, failed: 0, written: 0, skipped: 0, rejected: 0 };
  const session: WatchSession = { projectDir, runId, config, state, tracker, counts, json, io };
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  // Read afresh each time: a signal handler may have run during any await.
  const stopped = (): boolean => controller.signal.aborted;
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // An event wakes the loop at once: a document renamed into place is ingested without waiting for a tick.
  let wake = new AbortController();
  const watcher = once
    ? undefined
    : startWatcher(
        projectDir,
        dir,
        (docPath) => {
          tracker.mark(docPath);
          wake.abort();
        },
        io,
      );
  try {
    // The parse worker starts with the watch, not with the first document a runtime writes.
    if (!once) void parseFencesIsolated('```text file=warm-up.txt\n```\n').catch(() => undefined);
    await tracker.scan();
    if (!once) {
      io.stderr.write(
        `artifact-ingest: watching ${dir}/ for run ${runId} (quiet period ${String(quietMs)} ms); Ctrl-C to stop\n`,
      );
    }
    // The rescan is the safety net for events fs.watch drops (a full inotify queue, a folder made mid-write).
    const rescanMs = Math.max(1000, 2 * quietMs);
    const tickMs = Math.max(10, Math.min(100, Math.floor(quietMs / 3)));
    let lastScan = Date.now();
    while (!stopped()) {
      for (const { docPath, signature } of await tracker.settled()) {
        if (stopped()) break;
        await ingestWatchedDocument(session, docPath, signature);
      }
      if (once && tracker.pending() === 0) break;
      if (!once && Date.now() - lastScan >= rescanMs) {
        await tracker.scan();
        lastScan = Date.now();
      }
      if (!wake.signal.aborted) {
        await sleep(tickMs, undefined, { signal: AbortSignal.any([controller.signal, wake.signal]) }).catch(
          () => undefined,
        );
      }
      wake = new AbortController();
    }
  } finally {
    watcher?.close();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  const summary = `${once ? 'watch --once done' : 'watch stopped'}: ${String(counts.ingested)} ingested (${String(counts.written)} written, ${String(counts.skipped)} skipped, ${String(counts.rejected)} rejected), ${String(counts.unchanged)} unchanged, ${String(counts.failed)} failed; run ${runId}, state ${watchStatePath(runId)}\n`;
  (json ? io.stderr : io.stdout).write(summary);
  return 0;
}

/** File events of the folder and below (see watchFolder); the rescan covers their gaps. */
function startWatcher(
  projectDir: string,
  dir: string,
  mark: (docPath: string) => void,
  io: CliIo,
): FolderWatch | undefined {
  return watchFolder(
    path.join(projectDir, dir),
    (relative) => {
      mark(`${dir}/${relative}`);
    },
    (error) => {
      io.stderr.write(
        `artifact-ingest: watch: warning: file events are not available (${describeError(error)}); changes are found by rescanning ${dir}/ every second instead\n`,
      );
    },
  );
}

function parseQuietMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_QUIET_MS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > MAX_QUIET_MS) {
    throw new UsageError(
      `--quiet-ms '${text}' is not a whole number of milliseconds from 0 to ${String(MAX_QUIET_MS)}; e.g. --quiet-ms 300`,
      'watch',
    );
  }
  return value;
}

/**
 * DIR as a project-relative, `/`-separated folder: inside the project, a real folder (not a symlink), and apart
 * from workspace/ and .agent/, whose files the ingest itself writes (watching them would ingest its own output).
 */
async function resolveWatchedDir(projectDir: string, input: string): Promise<string> {
  const relative = path.relative(projectDir, path.resolve(projectDir, input)).split(path.sep).join('/');
  if (relative === '..' || relative.startsWith('../') || path.isAbsolute(relative)) {
    throw new UsageError(
      `${input} is outside the project ${projectDir}; DIR is relative to --project`,
      'watch',
    );
  }
  for (const own of [WORKSPACE_DIR, AGENT_DIR]) {
    if (relative === '' || relative === own || relative.startsWith(`${own}/`)) {
      throw new UsageError(
        `watch ${input === '' ? '.' : input} would watch ${own}/, where the ingest writes; watch the folder the documents are written to, e.g. docs`,
        'watch',
      );
    }
  }
  const info = await lstatOrMissing(path.join(projectDir, relative));
  if (info?.isDirectory() !== true) {
    throw new UsageError(
      `${relative}/ is not a folder under ${projectDir}${info === undefined ? '' : ' (a symlink or a file is in its place)'}; create it (mkdir -p ${relative}) or name another DIR`,
      'watch',
    );
  }
  return relative;
}
