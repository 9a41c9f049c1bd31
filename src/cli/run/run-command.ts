import { ConfigError, loadProjectConfig, resolveRemoteSettings } from '../../config/index.js';
import { INGEST_ENV_VAR, resolveIngestEnabled } from '../../ingest/index.js';
import { parseRunId, PROJECT_CONFIG_FILE, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { createAgent, loadGraph, readRun, RunError, runGraph } from '../../runtime/index.js';
import type { Agent, RunProgress, RunState } from '../../runtime/index.js';
import type { CliWriter } from '../cli-io.js';
import { exitCodeFor } from '../exit-codes.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { renderIngestWarnings, renderRunReport } from '../render-run-report.js';
import { resolveProject } from '../resolve-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';
import { otlpTarget } from '../../telemetry/index.js';
import type { OtlpDestination } from '../../telemetry/index.js';
import { exportRunTrace } from './export-run-trace.js';

/** Help text of `artifact-ingest run`. */
export const RUN_HELP = `Usage: artifact-ingest run GRAPH [options]
       artifact-ingest run --resume RUN_ID [options]

Run a graph of agent nodes. Each node writes a markdown document under docs/ (or audits/);
with ingest on, the document's \`\`\`<lang> file=<path> blocks are then extracted into workspace/.

GRAPH is a built-in graph (single, self_critique, team, ralph) or the path of a YAML graph file.
Agents are named in artifact-ingest.config.yaml (agents: <name>: { kind: replay | command | openai, ... }).

Options:
  --input KEY=VALUE   a run input, e.g. --input goal="a URL shortener" (repeatable)
  --agent NAME        use this configured agent for every agent node
  --ingest            ingest each node's document into workspace/ (overrides ${INGEST_ENV_VAR} and the config file)
  --no-ingest         do not ingest (the default, unless ${INGEST_ENV_VAR}=1 or ingest.enabled: true)
  --project DIR       project root (default: current directory)
  --run-id ID         id of the new run (default: <graph>-<UTC time>)
  --resume RUN_ID     finish a run that was interrupted: completed nodes are kept, the rest run again;
                      it keeps the run's ingest setting unless --ingest or --no-ingest is given
  --concurrency N     most nodes running at once (default: runtime.concurrency in the config, else 2)
  --max-minutes N     wall time of this invocation, in minutes (may be fractional): running agents are
                      stopped and the run ends budget_exceeded (overrides budgets.max_minutes of the graph)
  --max-agent-calls N agent calls of the whole run, fix re-asks included: the run ends budget_exceeded
                      before the call that would go past it (overrides budgets.max_agent_calls)
  --otlp URL          as the run ends, send its trace to the OTLP/HTTP receiver URL (URL/v1/traces;
                      OTEL_EXPORTER_OTLP_HEADERS honoured); a failure is a warning, never a failed run
  --langfuse          as the run ends, send its trace to Langfuse (LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY,
                      LANGFUSE_HOST; docs/traces.md); a failure is a warning, never a failed run
  --json              print the final run state as JSON, with its terminal state
  -h, --help          show this help

When the run ends it declares one terminal state (.agent/runs/<run_id>/terminal.json): done, blocked,
budget_exceeded or regression, with the artifact to read; an interrupted run declares none.

Exit codes: 0 the run ended done, 1 it ended blocked, budget_exceeded or regression, 2 usage or
configuration error, 130 interrupted (resumable).

Examples:
  artifact-ingest run team --input goal="a URL shortener" --ingest
  artifact-ingest run ./graphs/review.yaml --input doc=README.md --agent local-llm
  artifact-ingest run --resume team-20261121T203000000Z
`;

/** Runs `artifact-ingest run`; returns the exit code. */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args, {
    input: { type: 'string', multiple: true },
    agent: { type: 'string' },
    ingest: { type: 'boolean' },
    'no-ingest': { type: 'boolean' },
    project: { type: 'string' },
    'run-id': { type: 'string' },
    resume: { type: 'string' },
    concurrency: { type: 'string' },
    'max-minutes': { type: 'string' },
    'max-agent-calls': { type: 'string' },
    json: { type: 'boolean' },
    otlp: { type: 'string' },
    langfuse: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(RUN_HELP);
    return 0;
  }
  if (values.ingest === true && values['no-ingest'] === true) {
    throw new UsageError('--ingest and --no-ingest contradict each other; pass one of them', 'run');
  }
  const budgets = parseBudgets(values['max-minutes'], values['max-agent-calls']);
  // Checked before the run starts, so a bad URL or a missing key costs no agent call.
  const traceDestination = runTraceDestination(values.otlp, values.langfuse === true, io.env);
  const projectDir = await resolveProject(values.project, 'run', io.cwd);
  const resumeId = values.resume;
  if (resumeId !== undefined && values['run-id'] !== undefined) {
    throw new UsageError('--resume names the run to continue; drop --run-id', 'run');
  }
  const runIdText = values['run-id'];
  const runId: RunId | undefined =
    resumeId !== undefined
      ? await resolveRunId(projectDir, resumeId, '--resume')
      : runIdText === undefined
        ? undefined
        : parseRunId(runIdText, '--run-id');
  const resumed =
    resumeId === undefined || runId === undefined ? undefined : await graphRunState(projectDir, runId);
  if (positionals.length > 1) {
    throw new UsageError(`run takes one GRAPH, got ${positionals.length}: ${positionals.join(' ')}`, 'run');
  }
  const graphRef = positionals[0] ?? resumed?.graph.source.replace(/^builtin:/, '');
  if (graphRef === undefined) {
    throw new UsageError(
      'name a GRAPH (single, self_critique, team, ralph or a YAML file), or --resume RUN_ID',
      'run',
    );
  }

  const graph = await loadGraph(graphRef, { cwd: io.cwd });
  const projectConfig = await loadProjectConfig(projectDir);
  // Local first: with a remote configured, what the run keeps is pushed there in the background (docs/remote.md).
  const remote = resolveRemoteSettings(projectConfig, io.env);
  const cliIngest = values.ingest === true ? true : values['no-ingest'] === true ? false : undefined;
  const ingest = runIngestSetting(
    resolveIngestEnabled({ cli: cliIngest, env: io.env, config: projectConfig }),
    resumed,
  );
  const agents = new Map<string, Agent>();
  const agentFor = (name: string): Agent => {
    const existing = agents.get(name);
    if (existing !== undefined) return existing;
    const config = projectConfig.agents.get(name);
    if (config === undefined) {
      const known = [...projectConfig.agents.keys()];
      throw new ConfigError(PROJECT_CONFIG_FILE, [
        {
          path: `agents.${name}`,
          message:
            `no agent named "${name}"` +
            (known.length > 0 ? ` (configured: ${known.join(', ')})` : ' (no agents are configured)') +
            `; add it under agents:, e.g. "${name}: { kind: replay, dir: replies }", or pass --agent`,
        },
      ]);
    }
    const agent = createAgent(name, config, io.env);
    agents.set(name, agent);
    return agent;
  };

  // Agents run in their own process groups, so Ctrl-C must stop the run itself.
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await runGraph({
      projectDir,
      graph,
      inputs: parseInputs(values.input ?? []),
      agentFor,
      ...(values.agent === undefined ? {} : { agentOverride: values.agent }),
      ...(runId === undefined ? {} : { runId }),
      resume: resumeId !== undefined,
      concurrency: parseConcurrency(values.concurrency) ?? projectConfig.runtime.concurrency,
      budgets,
      maxRunDocumentBytes: projectConfig.runtime.maxRunDocumentBytes,
      ingest: {
        enabled: ingest.enabled,
        limits: projectConfig.ingest.limits,
        parser: projectConfig.ingest.parser,
        durability: projectConfig.ingest.durability,
      },
      env: io.env,
      ...(remote === undefined ? {} : { remote }),
      ...(projectConfig.git.export ? { gitExport: { repo: projectConfig.git.repo } } : {}),
      onProgress: progressPrinter(io.stderr),
      signal: controller.signal,
    });
    const { terminal } = result;
    io.stderr.write(renderIngestWarnings(result.state));
    if (traceDestination !== undefined) {
      await exportRunTrace(projectDir, result.runId, traceDestination, io.stderr);
    }
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify({ ...result.state, terminal: terminal ?? null }, null, 2)}\n`);
    } else {
      io.stdout.write(
        renderRunReport(result.state, {
          ingestNote: ingest.note,
          ...(terminal === undefined ? {} : { terminal }),
        }),
      );
    }
    // A stopped run is resumable, not ended: shells report 128 + SIGINT.
    if (terminal === undefined) return controller.signal.aborted ? exitCodeFor('interrupted') : 1;
    return terminal.state === 'done' ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Where `--otlp URL` or `--langfuse` sends the run's trace as it ends, or undefined when neither is given. */
function runTraceDestination(
  url: string | undefined,
  langfuse: boolean,
  env: Readonly<Record<string, string | undefined>>,
): OtlpDestination | undefined {
  if (url === undefined && !langfuse) return undefined;
  if (url !== undefined && langfuse) throw new UsageError('give --otlp or --langfuse, not both', 'run');
  const target = otlpTarget({ ...(url === undefined ? {} : { url }), langfuse }, env);
  if (!target.ok) throw new UsageError(target.message.replace(/^--url:/, '--otlp:'), 'run');
  return target.destination ?? undefined;
}

/** The state of a graph run to resume; a run made by `artifact-ingest ingest` has none and cannot be resumed. */
async function graphRunState(projectDir: string, runId: RunId): Promise<RunState> {
  let details;
  try {
    details = await readRun(projectDir, runId);
  } catch (error) {
    // The folder exists (resolveRunId checked): a run killed before its first state write, with nothing to resume.
    if (!(error instanceof UnknownRunError)) throw error;
    throw new RunError(
      'not_a_graph_run',
      `run ${runId} was stopped before it saved any state (its folder holds no state.json, so no node ran) and cannot be resumed; start it again under the same id: artifact-ingest run GRAPH --run-id ${runId}`,
    );
  }
  if (details.kind === 'ingest') {
    throw new RunError(
      'not_a_graph_run',
      `run ${runId} was made by 'artifact-ingest ingest', not by a graph, and cannot be resumed`,
    );
  }
  return details.state;
}

/**
 * The ingest setting of the run: a resumed run keeps the one it started with unless a flag overrides it (the
 * environment and the config file do not), and the note says which.
 */
function runIngestSetting(
  resolved: { enabled: boolean; source: string },
  resumed: RunState | undefined,
): { enabled: boolean; note: string } {
  if (resumed === undefined) return { enabled: resolved.enabled, note: `from ${resolved.source}` };
  if (resolved.source === 'cli')
    return { enabled: resolved.enabled, note: resolved.enabled ? '--ingest' : '--no-ingest' };
  return { enabled: resumed.ingest_enabled, note: 'kept from the run' };
}

function parseInputs(pairs: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) {
      throw new UsageError(`--input '${pair}' must be KEY=VALUE, e.g. --input goal="a URL shortener"`, 'run');
    }
    const key = pair.slice(0, equals);
    if (key in inputs) throw new UsageError(`--input ${key} is given twice; pass each input once`, 'run');
    inputs[key] = pair.slice(equals + 1);
  }
  return inputs;
}

function parseConcurrency(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new UsageError(`--concurrency '${text}' must be a whole number from 1 to 64`, 'run');
  }
  return value;
}

/** `--max-minutes` (a positive number) and `--max-agent-calls` (a whole number from 1). */
function parseBudgets(
  minutesText: string | undefined,
  callsText: string | undefined,
): { maxMinutes?: number; maxAgentCalls?: number } {
  const budgets: { maxMinutes?: number; maxAgentCalls?: number } = {};
  if (minutesText !== undefined) {
    const minutes = Number(minutesText);
    if (minutesText.trim() === '' || !Number.isFinite(minutes) || minutes <= 0) {
      throw new UsageError(
        `--max-minutes '${minutesText}' must be a number of minutes above 0, e.g. 30 or 0.5`,
        'run',
      );
    }
    budgets.maxMinutes = minutes;
  }
  if (callsText !== undefined) {
    const calls = Number(callsText);
    if (callsText.trim() === '' || !Number.isSafeInteger(calls) || calls < 1) {
      throw new UsageError(
        `--max-agent-calls '${callsText}' must be a whole number of 1 or more, e.g. 20`,
        'run',
      );
    }
    budgets.maxAgentCalls = calls;
  }
  return budgets;
}

/** Prints one line per node transition on a terminal; nothing when stderr is not a TTY. */
function progressPrinter(stream: CliWriter): (progress: RunProgress) => void {
  return (progress) => {
    if (stream.isTTY !== true) return;
    const counter = `[${progress.done}/${progress.total}]`;
    switch (progress.type) {
      case 'node.started':
        stream.write(`${counter} started    ${progress.nodeId}\n`);
        break;
      case 'node.completed': {
        const ingest = progress.ingest;
        const files =
          ingest === undefined
            ? ''
            : `  files: ${ingest.written} written, ${ingest.skipped - (ingest.io_errors ?? 0)} skipped, ${ingest.io_errors === undefined ? '' : `${String(ingest.io_errors)} errors, `}${ingest.rejected} rejected`;
        stream.write(`${counter} completed  ${progress.nodeId}${files}\n`);
        break;
      }
      case 'node.fix_needed':
        stream.write(
          `${counter} fix needed ${progress.nodeId}: ${progress.reason} (re-ask ${String(progress.attempt)} of ${String(progress.of)})\n`,
        );
        break;
      case 'node.failed':
        stream.write(`${counter} failed     ${progress.nodeId}: ${progress.message}\n`);
        break;
    }
  };
}
