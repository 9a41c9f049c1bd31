import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatBytes, readRunReport, renderRunReportPage } from '../../report/index.js';
import { defaultRunId } from '../../runtime/index.js';
import { describeError } from '../../project/index.js';
import { fillFreshFolder, makeFreshMarkedFolder } from '../../workspace/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { runCommand } from './run-command.js';
import { UsageError } from '../usage-error.js';
import { writeReportFile } from './write-report-file.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest demo`. */
export const DEMO_HELP = `Usage: artifact-ingest demo [team | ralph] [--scenario done|blocked] [--dir DIR] [--json]

Create a fresh demo project, then run a built-in graph in it with the replay agent and ingest on.
Prints the run table and where to look, then writes the run's HTML report into DIR and prints its path.

  team    (default) the team graph on fixtures/demo/replies: several files per node, a
          nested-fence README, hostile paths, a truncated reply
  ralph   the ralph graph with artifact contracts on fixtures/ralph/<scenario>: product spec,
          plan decision, development (a malformed result, fixed on the re-ask), review, fix,
          a real smoke test, commit message; ends in one terminal state (docs/contracts.md)

Options:
  --scenario S  ralph only: done (default; exit 0) or blocked (a blocker issue; exit 1)
  --dir DIR     demo project to (re)create (default: ./demo); an existing DIR is replaced
                only if an earlier demo created it
  --json        print the final run state as JSON
  -h, --help    show this help
`;

const DEMO_MARKER = {
  name: '.artifact-ingest-demo',
  text: 'created by artifact-ingest demo; safe to delete\n',
} as const;
const DEMO_REPLIES = fileURLToPath(new URL('../../../fixtures/demo/replies/', import.meta.url));
const DEMO_GOAL = 'a tiny URL shortener with tests and a README';
const RALPH_REPLIES = fileURLToPath(new URL('../../../fixtures/ralph/', import.meta.url));
const RALPH_GOAL = 'a slugify function that turns titles into URL slugs, with tests';
const RALPH_SCENARIOS = ['done', 'blocked'] as const;

// Every agent of the team graph replays the shipped replies; ingest is on for this project.
const DEMO_CONFIG = `# Written by 'artifact-ingest demo'. Edit replies/*.md and run:
#   artifact-ingest run team --project . --input goal="${DEMO_GOAL}"
ingest:
  enabled: true
agents:
  planner: { kind: replay, dir: replies }
  builder: { kind: replay, dir: replies }
  auditor: { kind: replay, dir: replies }
  writer: { kind: replay, dir: replies }
`;

// The ralph graph's agents replay one scenario's replies; its smoke node runs real commands.
const RALPH_CONFIG = `# Written by 'artifact-ingest demo ralph'. Edit replies/*.md and run:
#   artifact-ingest run ralph --project . --input goal="${RALPH_GOAL}"
ingest:
  enabled: true
agents:
  planner: { kind: replay, dir: replies }
  builder: { kind: replay, dir: replies }
  reviewer: { kind: replay, dir: replies }
  writer: { kind: replay, dir: replies }
`;

/** Runs `artifact-ingest demo`; returns the exit code. */
export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('demo', args, {
    dir: { type: 'string' },
    scenario: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return 0;
  }
  const demo = chooseDemo(positionals, values.scenario);
  const projectDir = path.resolve(io.cwd, values.dir ?? 'demo');
  if (!(await makeFreshMarkedFolder(projectDir, DEMO_MARKER))) {
    throw new UsageError(
      `${projectDir} exists and was not made by the demo; pass --dir with a new folder`,
      'demo',
    );
  }
  await fillFreshFolder(projectDir, {
    trees: { replies: demo.replies },
    files: { 'artifact-ingest.config.yaml': demo.config },
  });

  if (values.json !== true) io.stdout.write(`Demo project: ${projectDir}\n\n`);
  // The run id is chosen here so the closing hint can name it.
  const runId = defaultRunId(demo.graph);
  const code = await runCommand(
    [
      demo.graph,
      '--run-id',
      runId,
      '--project',
      projectDir,
      '--input',
      `goal=${demo.goal}`,
      ...(values.json === true ? ['--json'] : []),
    ],
    io,
  );
  if (values.json !== true) {
    io.stdout.write(
      `\nLook at ${path.join(projectDir, 'workspace')} for the extracted files, docs/ for the documents,\n` +
        `and list the runs with: npx artifact-ingest runs --project ${projectDir}\n` +
        `Replay the run step by step, read-only: npx artifact-ingest replay ${runId} --project ${projectDir}\n` +
        `(then log, checkout, verify, bundle: docs/artifacts.md)\n` +
        (demo.graph === 'ralph'
          ? `The contract artifacts are in ${path.join(projectDir, '.agent', 'artifacts', runId)};\n` +
            `check they all came through the canonical path: npx artifact-ingest audit ${runId} --project ${projectDir}\n`
          : ''),
    );
  }
  await writeDemoReport(projectDir, runId, values.json === true, io);
  return code;
}

/** Writes the run's report into the demo project and names it; a report that fails never fails the demo. */
async function writeDemoReport(projectDir: string, runId: string, quiet: boolean, io: CliIo): Promise<void> {
  try {
    const page = await renderRunReportPage(await readRunReport(projectDir, runId));
    const written = await writeReportFile(path.join(projectDir, `${runId}.report.html`), page, {
      force: false,
    });
    if (!quiet) {
      io.stdout.write(
        `\nThe run's report, one HTML page to open in a browser (${formatBytes(written.bytes)}):\n  ${written.path}\n`,
      );
    }
  } catch (error) {
    io.stderr.write(`artifact-ingest: warning: the run's report was not written: ${describeError(error)}\n`);
  }
}

interface DemoChoice {
  readonly graph: 'team' | 'ralph';
  readonly replies: string;
  readonly config: string;
  readonly goal: string;
}

function chooseDemo(positionals: readonly string[], scenario: string | undefined): DemoChoice {
  if (positionals.length > 1) {
    throw new UsageError(
      `demo takes one graph name, got ${positionals.join(' ')}; write team or ralph`,
      'demo',
    );
  }
  const graph = positionals[0] ?? 'team';
  if (graph !== 'team' && graph !== 'ralph') {
    throw new UsageError(`demo has no graph "${graph}"; write team or ralph`, 'demo');
  }
  if (graph === 'team') {
    if (scenario !== undefined) {
      throw new UsageError('--scenario is for the ralph demo; write demo ralph --scenario blocked', 'demo');
    }
    return { graph, replies: DEMO_REPLIES, config: DEMO_CONFIG, goal: DEMO_GOAL };
  }
  const chosen = scenario ?? 'done';
  if (!(RALPH_SCENARIOS as readonly string[]).includes(chosen)) {
    throw new UsageError(
      `--scenario must be ${RALPH_SCENARIOS.join(' or ')}, got ${JSON.stringify(chosen)}`,
      'demo',
    );
  }
  return { graph, replies: path.join(RALPH_REPLIES, chosen), config: RALPH_CONFIG, goal: RALPH_GOAL };
}
