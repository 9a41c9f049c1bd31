import path from 'node:path';
import {
  formatBytes,
  readPathReport,
  readRunReport,
  renderPathReportPage,
  renderRunReportPage,
} from '../../report/index.js';
import { loadProjectConfig } from '../../config/index.js';
import { sha256Hex } from '../../project/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { usingCommandProject } from '../using-command-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import { writeReportFile } from './write-report-file.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest report`. */
export const REPORT_HELP = `Usage: artifact-ingest report RUN_ID [-o FILE] [--force] [--remote] [--project DIR] [--json]
       artifact-ingest report --path P [-o FILE] [--force] [--remote] [--project DIR] [--json]

Write one self-contained HTML page about a run, from its records, read-only like replay: the run's header
and terminal state, a timeline of its steps, each step's agent, prompt hash, document, blocks (with the
reason of each one refused), files with their line diffs, contract and reconciliation, the run's contracts
and verify's verdict. The page loads nothing and runs only its own script; open it from disk in a browser.
With --path: the lineage of one path across runs instead, every version with who wrote it and its diff.

Large runs stay small: diffs and documents are capped, and the page names what it left out and the
replay command that shows it. With --remote the run (or the path's versions, from every machine) is read
from the remote; the page is still written here, and its verify checks records and contents only.

Options:
  -o, --output FILE  where to write the page (default: RUN_ID.report.html, or path-P.report.html with /
                     as _ and a long P cut to its end behind a hash, in the current directory); an
                     existing FILE is replaced only if it is an earlier report; - writes it to stdout
  --force            replace FILE even if it is not an earlier report
  --path P           a path's lineage: workspace/src/a.ts, src/a.ts (inside workspace/) or docs/plan.md
  --remote           read from the remote the config names (docs/remote.md), not .agent/
  --project DIR      project root (default: current directory)
  --json             print the report's model as JSON instead of a page (docs/report.md)
  -h, --help         show this help

Exit codes: 0 written; 2 usage, an unknown run or path, or FILE exists and is not a report.
`;

/** Runs `artifact-ingest report`; returns the exit code. */
export async function reportCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('report', args, {
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
    path: { type: 'string' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(REPORT_HELP);
    return 0;
  }
  const wanted = chooseReport(positionals, values.path);
  if (values.output === '') throw new UsageError('-o needs a file name, or - for stdout', 'report');
  if (values.json === true && values.output !== undefined) {
    throw new UsageError(
      '--json prints the model on stdout; leave out -o, or leave out --json for a page',
      'report',
    );
  }
  const rendered = await usingCommandProject('report', values, io, async (project) => {
    if (wanted.kind === 'run') {
      const runId = await resolveRunId(project, wanted.runId);
      const gitRepo = await configuredGitRepo(project.dir);
      const report = await readRunReport(project, runId, gitRepo === undefined ? {} : { gitRepo });
      if (values.json === true) return { json: report };
      return { page: await renderRunReportPage(report), defaultName: `${runId}.report.html` };
    }
    const report = await readPathReport(project, wanted.path);
    if (values.json === true) return { json: report };
    return { page: renderPathReportPage(report), defaultName: pathReportFileName(report.path) };
  });
  if ('json' in rendered) return printJson(io, rendered.json);
  const { page, defaultName } = rendered;
  if (values.output === '-') {
    io.stdout.write(page);
    return 0;
  }
  const written = await writeReportFile(path.resolve(io.cwd, values.output ?? defaultName), page, {
    force: values.force === true,
  });
  io.stdout.write(`Wrote ${written.path} (${formatBytes(written.bytes)})\n`);
  return 0;
}

/**
 * `git.repo` of the project's config, where `export git` writes the run's commits; undefined (the project folder)
 * when none is set or the config cannot be read: a broken config does not stop a report, as it never did.
 */
async function configuredGitRepo(projectDir: string): Promise<string | undefined> {
  try {
    return (await loadProjectConfig(projectDir)).git.repo;
  } catch {
    return undefined;
  }
}

type WantedReport =
  { readonly kind: 'run'; readonly runId: string } | { readonly kind: 'path'; readonly path: string };

function chooseReport(positionals: readonly string[], pathOption: string | undefined): WantedReport {
  if (pathOption !== undefined) {
    if (pathOption === '') throw new UsageError('--path needs a path, such as src/a.ts', 'report');
    if (positionals.length > 0) {
      throw new UsageError(
        `report --path takes no RUN_ID (got ${positionals.join(' ')}); a path's report covers every run`,
        'report',
      );
    }
    return { kind: 'path', path: pathOption };
  }
  const [runId, ...extra] = positionals;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError(
      "report takes exactly one RUN_ID, or --path P; list the runs with 'artifact-ingest runs'",
      'report',
    );
  }
  return { kind: 'run', runId };
}

function printJson(io: CliIo, report: unknown): number {
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}

// Well under the 255-byte name limit of common file systems, with room for the writer's temp-file suffix.
const MAX_FILE_NAME = 200;

/**
 * The default file of `report --path P`: `path-P.report.html` with separators and anything unusual as `_`; a
 * path too long for one file name keeps its end (the file's own name) behind a short hash of the whole path.
 */
export function pathReportFileName(projectPath: string): string {
  const flat = projectPath.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  const name = `path-${flat}.report.html`;
  if (name.length <= MAX_FILE_NAME) return name;
  const prefix = `path-${sha256Hex(projectPath).slice(0, 12)}-`;
  const suffix = '.report.html';
  return `${prefix}${flat.slice(flat.length - (MAX_FILE_NAME - prefix.length - suffix.length))}${suffix}`;
}
