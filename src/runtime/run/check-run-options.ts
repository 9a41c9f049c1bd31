import { ConfigError } from '../../config/index.js';
import { ID_RULE, runIdSchema } from '../../project/index.js';
import type { ConfigIssue } from '../../config/index.js';
import type { Agent } from '../agents/index.js';
import type { GraphDefinition } from '../graph/index.js';
import { findDependencyCycles } from '../graph/index.js';
import { RunError } from './run-error.js';
import type { RunGraphOptions } from './run-types.js';
import type { RunState } from '../../runs/index.js';

const DEFAULT_CONCURRENCY = 2;

/**
 * Checks the options that need no disk: run id, concurrency and the graph's shape; returns the concurrency.
 * Throws {@link ConfigError} listing every issue, before anything is written.
 */
export function checkRunOptions(options: RunGraphOptions): number {
  const issues: ConfigIssue[] = [];
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    issues.push({
      path: 'concurrency',
      message: `${String(concurrency)} is not a whole number of nodes; pass 1 or more`,
    });
  }
  if (options.runId !== undefined && !runIdSchema.safeParse(options.runId).success) {
    issues.push({
      path: 'run_id',
      message: `'${options.runId}' ${ID_RULE}`,
    });
  }
  const { maxMinutes, maxAgentCalls } = options.budgets ?? {};
  if (maxMinutes !== undefined && !(Number.isFinite(maxMinutes) && maxMinutes > 0)) {
    issues.push({
      path: 'budgets.max_minutes',
      message: `${String(maxMinutes)} is not a number of minutes above 0`,
    });
  }
  if (maxAgentCalls !== undefined && !(Number.isSafeInteger(maxAgentCalls) && maxAgentCalls >= 1)) {
    issues.push({
      path: 'budgets.max_agent_calls',
      message: `${String(maxAgentCalls)} is not a whole number of agent calls; pass 1 or more`,
    });
  }
  if (options.resume === true && options.runId === undefined) {
    issues.push({ path: 'resume', message: 'resuming needs the id of the run to continue; pass its run id' });
  }
  issues.push(...graphIssues(options.graph));
  if (issues.length > 0) throw new ConfigError(`graph ${options.graph.name}`, issues);
  return concurrency;
}

/** Every declared input given, no unknown one; throws {@link ConfigError} listing every issue. */
export function checkNewRunInputs(graph: GraphDefinition, inputs: Readonly<Record<string, string>>): void {
  const issues: ConfigIssue[] = [];
  const declared = graph.inputs.length === 0 ? '(none)' : graph.inputs.join(', ');
  for (const name of graph.inputs) {
    if (!Object.hasOwn(inputs, name)) {
      issues.push({
        path: `inputs.${name}`,
        message: `input '${name}' is required by graph ${graph.name}; pass --input ${name}=VALUE`,
      });
    }
  }
  for (const name of Object.keys(inputs)) {
    if (!graph.inputs.includes(name)) {
      issues.push({
        path: `inputs.${name}`,
        message: `unknown input '${name}'; graph ${graph.name} declares: ${declared}`,
      });
    }
  }
  if (issues.length > 0) throw new ConfigError(`inputs of graph ${graph.name}`, issues);
}

/** A resume keeps the state's inputs: passing none or the same values is fine, a different value is not. */
export function checkResumeInputs(state: RunState, inputs: Readonly<Record<string, string>>): void {
  const differing = Object.entries(inputs)
    .filter(([name, value]) => state.inputs[name] !== value)
    .map(([name]) => name);
  if (differing.length === 0) return;
  throw new RunError(
    'inputs_changed',
    `run ${state.run_id} was started with other inputs (${differing.join(', ')} differ); ` +
      'a resume keeps the inputs of its start: pass no inputs, or start a new run',
  );
}

/** A resume is only sound for the graph definition the run started with. */
export function checkResumeGraph(state: RunState, graph: GraphDefinition): void {
  if (state.graph.hash !== graph.hash) {
    throw new RunError(
      'graph_changed',
      `graph definition changed since run ${state.run_id} started; start a new run ` +
        `(state.json pins ${state.graph.name} ${state.graph.hash.slice(0, 12)}, the graph given is ${graph.hash.slice(0, 12)})`,
    );
  }
}

/** Resolves the agent of every agent_task node in `nodeIds` up front, so a bad name fails before the run starts. */
export function resolveAgents(
  options: RunGraphOptions,
  nodeIds: ReadonlySet<string>,
): ReadonlyMap<string, Agent> {
  const agents = new Map<string, Agent>();
  const issues: ConfigIssue[] = [];
  for (const node of options.graph.nodes) {
    if (node.type !== 'agent_task' || !nodeIds.has(node.id)) continue;
    const name = options.agentOverride ?? node.agent;
    if (name === undefined) {
      issues.push({ path: `nodes.${node.id}.agent`, message: 'an agent_task node needs agent: NAME' });
      continue;
    }
    agents.set(node.id, options.agentFor(name));
  }
  if (issues.length > 0) throw new ConfigError(`graph ${options.graph.name}`, issues);
  return agents;
}

function graphIssues(graph: GraphDefinition): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const ids = new Set<string>();
  for (const node of graph.nodes) {
    if (!runIdSchema.safeParse(node.id).success) {
      issues.push({
        path: `nodes.${node.id}`,
        message: `node id ${ID_RULE}`,
      });
    }
    if (ids.has(node.id)) issues.push({ path: `nodes.${node.id}`, message: 'duplicate node id' });
    ids.add(node.id);
  }
  for (const node of graph.nodes) {
    for (const dependency of node.dependsOn) {
      if (!ids.has(dependency)) {
        issues.push({
          path: `nodes.${node.id}.depends_on`,
          message: `unknown node '${dependency}'; nodes: ${[...ids].join(', ')}`,
        });
      }
    }
  }
  const cycle = issues.length === 0 ? findDependencyCycles(graph.nodes)[0] : undefined;
  if (cycle !== undefined) {
    issues.push({ path: 'nodes', message: `depends_on makes a cycle: ${cycle.join(' -> ')}` });
  }
  return issues;
}
