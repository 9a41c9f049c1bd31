import { cp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultRunId } from '../runtime/index.js';
import { parseCommandArgs } from './parse-command-args.js';
import { runCommand } from './run-command.js';
import { UsageError } from './usage-error.js';
import type { CliIo } from './cli-io.js';

/** Help text of `artifact-ingest demo`. */
export const DEMO_HELP = `Usage: artifact-ingest demo [--dir DIR] [--json]

Create a fresh demo project, then run the built-in team graph in it with the replay agent
(the replies in fixtures/demo/replies: several files per node, a nested-fence README, hostile
paths, a truncated reply) and ingest on. Prints the run table and where to look.

Options:
  --dir DIR    demo project to (re)create (default: ./demo); an existing DIR is replaced
               only if an earlier demo created it
  --json       print the final run state as JSON
  -h, --help   show this help
`;

const MARKER = '.artifact-ingest-demo';
const DEMO_REPLIES = fileURLToPath(new URL('../../fixtures/demo/replies/', import.meta.url));
const DEMO_GOAL = 'a tiny URL shortener with tests and a README';

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

/** Runs `artifact-ingest demo`; returns the exit code. */
export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('demo', args, {
    dir: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return 0;
  }
  const projectDir = path.resolve(io.cwd, values.dir ?? 'demo');
  await freshProject(projectDir);
  await cp(DEMO_REPLIES, path.join(projectDir, 'replies'), { recursive: true });
  await writeFile(path.join(projectDir, 'artifact-ingest.config.yaml'), DEMO_CONFIG);

  if (values.json !== true) io.stdout.write(`Demo project: ${projectDir}\n\n`);
  // The run id is chosen here so the closing hint can name it.
  const runId = defaultRunId('team');
  const code = await runCommand(
    [
      'team',
      '--run-id',
      runId,
      '--project',
      projectDir,
      '--input',
      `goal=${DEMO_GOAL}`,
      ...(values.json === true ? ['--json'] : []),
    ],
    io,
  );
  if (values.json !== true) {
    io.stdout.write(
      `\nLook at ${path.join(projectDir, 'workspace')} for the extracted files, docs/ for the documents,\n` +
        `and list the runs with: npx artifact-ingest runs --project ${projectDir}\n` +
        `Replay the run step by step, read-only: npx artifact-ingest replay ${runId} --project ${projectDir}\n` +
        `(then log, checkout, verify, bundle: docs/artifacts.md)\n`,
    );
  }
  return code;
}

async function freshProject(projectDir: string): Promise<void> {
  const existing = await stat(projectDir).catch(() => null);
  if (existing !== null) {
    const marked = await stat(path.join(projectDir, MARKER)).catch(() => null);
    if (marked === null) {
      throw new UsageError(
        `${projectDir} exists and was not made by the demo; pass --dir with a new folder`,
        'demo',
      );
    }
    await rm(projectDir, { recursive: true, force: true });
  }
  await mkdir(projectDir, { recursive: true });
  await writeFile(path.join(projectDir, MARKER), 'created by artifact-ingest demo; safe to delete\n');
}
