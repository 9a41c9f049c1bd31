import type { Project } from '../../../store/index.js';
import type { EventLog } from '../../../events/index.js';
import type { IngestRoots } from '../../../ingest/index.js';
import type { ConfinedRoot } from '../../../workspace/index.js';
import { AgentError } from '../../agents/index.js';
import type { Agent, AgentUsage } from '../../agents/index.js';
import type { GraphDefinition, GraphNode } from '../../graph/index.js';
import { ancestorsOf } from '../../graph/index.js';
import { renderNodeTemplate, renderOutputPath } from '../../graph/index.js';
import type { Rendered, TemplateLookup } from '../../graph/index.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '../../graph/index.js';
import type { RunBudget } from '../run-budget.js';
import type { RunOutputLimit } from '../run-output-limit.js';
import type { RunRecorder } from '../run-recorder.js';
import type { RunGraphOptions } from '../run-types.js';
import type { NodeContractState, NodeIngestSummary } from '../../../runs/index.js';
import { describeError, sha256Hex } from '../../../project/index.js';
import type { RunId } from '../../../project/index.js';
import { startAgentSpan } from '../../../telemetry/index.js';

/** Stable codes of `error.code` in a node's state and its `node.failed` / `node.skipped` events. */
export type NodeErrorCode =
  | AgentError['code']
  | 'agent_error'
  | 'template_error'
  | 'bad_output_path'
  | 'output_refused'
  // A document (or rendered prompt) over max_document_bytes, or the run's documents over max_run_document_bytes.
  | 'output_too_large'
  | 'output_write_failed'
  | 'dependency_failed'
  // Contracts (spec contracts.md): a precondition failed, the fix re-asks ran out, a run budget ran out.
  | 'blocked'
  | 'fix_needed'
  | 'budget_exceeded';

/** What a node needs from its run. */
export interface NodeRunContext {
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly project: Project;
  readonly runId: RunId;
  readonly graph: GraphDefinition;
  readonly inputs: Readonly<Record<string, string>>;
  /** Documents of completed nodes, by node id. */
  readonly outputs: ReadonlyMap<string, string>;
  readonly root: ConfinedRoot;
  /** The roots every node's ingest writes through: opened once by the run, closed by it. */
  readonly ingestRoots: IngestRoots;
  readonly events: EventLog;
  readonly ingest: RunGraphOptions['ingest'];
  /** Where the node's document and ingested files are recorded as artifacts (fail-open). */
  readonly recorder: RunRecorder;
  /** The run's budgets: agent calls are counted here, fix re-asks bounded by it. */
  readonly budget: RunBudget;
  /** The size limits of node documents, one and all together; a document over them is never written. */
  readonly outputLimit: RunOutputLimit;
  /** The environment command nodes' programs inherit. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
}

/** A node with its templates rendered, ready to run, or why it cannot run. */
export type PreparedNode =
  | {
      readonly ok: true;
      readonly node: GraphNode;
      readonly outputPath: string;
      /** agent_task: the rendered prompt and its agent; write_file: the rendered content. */
      readonly work:
        | {
            readonly kind: 'agent';
            readonly agent: Agent;
            readonly prompt: string;
            readonly promptSha256: string;
          }
        | { readonly kind: 'content'; readonly content: string }
        | {
            readonly kind: 'commands';
            readonly commands: readonly (readonly string[])[];
            readonly timeoutMs: number;
          };
    }
  | {
      readonly ok: false;
      readonly node: GraphNode;
      readonly code: NodeErrorCode;
      readonly message: string;
    };

/** How a node ended. */
export type NodeOutcome =
  | {
      readonly status: 'completed';
      readonly outputPath: string;
      readonly bytes: number;
      readonly sha256: string;
      /** The document as written, decoded: what `{node_id.output}` gives its dependents. */
      readonly text: string;
      readonly ingest?: NodeIngestSummary;
      /** The node's contract, satisfied. */
      readonly contract?: NodeContractState;
    }
  | {
      readonly status: 'failed';
      readonly code: NodeErrorCode;
      readonly message: string;
      /** The node's contract, blocked or still needing a fix. */
      readonly contract?: NodeContractState;
    };

/** Renders a node's output path and its prompt or content (synchronous: no I/O). */
export function prepareNode(
  context: NodeRunContext,
  node: GraphNode,
  agent: Agent | undefined,
): PreparedNode {
  const lookup = variablesOf(context, node);
  const outputPath = explain(renderOutputPath(node.outputPath, lookup.get), node, 'output_path', lookup);
  if (!outputPath.ok) return { ok: false, node, code: outputPath.code, message: outputPath.message };
  const limit = { maxBytes: context.outputLimit.maxDocumentBytes };
  if (node.type === 'agent_task') {
    const prompt = explain(renderNodeTemplate(node.prompt ?? '', lookup.get, limit), node, 'prompt', lookup);
    if (!prompt.ok) return { ok: false, node, code: prompt.code, message: prompt.message };
    if (agent === undefined) {
      return { ok: false, node, code: 'agent_error', message: `node ${node.id} has no agent` };
    }
    const work = { kind: 'agent', agent, prompt: prompt.text, promptSha256: sha256Hex(prompt.text) } as const;
    return { ok: true, node, outputPath: outputPath.text, work };
  }
  if (node.type === 'command') {
    const work = {
      kind: 'commands',
      commands: node.commands ?? [],
      timeoutMs: node.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    } as const;
    return { ok: true, node, outputPath: outputPath.text, work };
  }
  const content = explain(renderNodeTemplate(node.content ?? '', lookup.get, limit), node, 'content', lookup);
  if (!content.ok) return { ok: false, node, code: content.code, message: content.message };
  return { ok: true, node, outputPath: outputPath.text, work: { kind: 'content', content: content.text } };
}

type AgentReply =
  { readonly status: 'replied'; readonly text: string } | Extract<NodeOutcome, { status: 'failed' }>;

/**
 * Asks a node's agent once, in a GenAI `invoke_agent` live span under the active one (the node attempt's); what
 * the agent reports of its call goes on the span and to `onUsage`. An agent failure is a failed outcome carrying
 * its code, never a throw.
 */
export async function askAgent(
  context: NodeRunContext,
  node: GraphNode,
  agent: Agent,
  prompt: string,
  attempt: number,
  onUsage?: (usage: AgentUsage) => void,
): Promise<AgentReply> {
  const span = startAgentSpan({
    agentId: agent.name,
    agentName: agent.name,
    // GenAI's provider is the API spoken: only the openai agent speaks one (replay and command agents are local).
    ...(agent.kind === 'openai' ? { provider: 'openai' } : {}),
    ...(agent.model === undefined ? {} : { requestModel: agent.model }),
  });
  try {
    const usage = (reported: AgentUsage): void => {
      span.usage(reported);
      onUsage?.(reported);
    };
    const reply = await span.within(() => askAgentOnce(context, node, agent, prompt, attempt, usage));
    span.end(
      reply.status === 'replied' ? { status: 'completed' } : { status: 'failed', error: reply.message },
    );
    return reply;
  } catch (error) {
    span.fail(error);
    throw error;
  }
}

async function askAgentOnce(
  context: NodeRunContext,
  node: GraphNode,
  agent: Agent,
  prompt: string,
  attempt: number,
  onUsage: (usage: AgentUsage) => void,
): Promise<AgentReply> {
  try {
    const reply: unknown = await agent.complete({
      runId: context.runId,
      nodeId: node.id,
      prompt,
      attempt,
      signal: context.signal,
      onUsage,
    });
    if (typeof reply !== 'string') {
      return {
        status: 'failed',
        code: 'agent_error',
        message: `agent ${agent.name} replied with ${typeof reply}, not text`,
      };
    }
    return { status: 'replied', text: reply };
  } catch (error) {
    if (error instanceof AgentError) return { status: 'failed', code: error.code, message: error.message };
    if (context.signal.aborted) {
      return {
        status: 'failed',
        code: 'aborted',
        message: `agent ${agent.name} stopped: the run was aborted`,
      };
    }
    return {
      status: 'failed',
      code: 'agent_error',
      message: `agent ${agent.name} failed: ${describeError(error)}`,
    };
  }
}

interface RecordingLookup {
  readonly get: TemplateLookup;
  /** Variables asked for that had no value. */
  readonly missing: Set<string>;
}

/** `{run_id}`, the run's inputs, and `{id.output}` of the nodes this one depends on (directly or not). */
function variablesOf(context: NodeRunContext, node: GraphNode): RecordingLookup {
  const ancestors = ancestorsOf(context.graph, node.id);
  const missing = new Set<string>();
  const value = (name: string): string | undefined => {
    if (name === 'run_id') return context.runId;
    if (name.endsWith('.output')) {
      const id = name.slice(0, -'.output'.length);
      // Only an ancestor's output is certain to exist, and to be the same on every run.
      return ancestors.has(id) ? context.outputs.get(id) : undefined;
    }
    return Object.hasOwn(context.inputs, name) ? context.inputs[name] : undefined;
  };
  const get: TemplateLookup = (name) => {
    const found = value(name);
    if (found === undefined) missing.add(name);
    return found;
  };
  return { get, missing };
}

/** Adds which variable was missing, and why, to a failed render's message. */
function explain(rendered: Rendered, node: GraphNode, field: string, lookup: RecordingLookup): Rendered {
  const missing = [...lookup.missing];
  lookup.missing.clear();
  if (rendered.ok) return rendered;
  if (rendered.code === 'output_too_large') {
    return {
      ...rendered,
      message: `node ${node.id}: ${field}: ${rendered.message} (max_document_bytes); nothing was written. Make the node's inputs or template smaller, or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml`,
    };
  }
  const hints = missing.map((name) => {
    const id = name.endsWith('.output') ? name.slice(0, -'.output'.length) : null;
    return id === null
      ? `{${name}} is not an input of the run`
      : `{${name}} needs node ${id} in the depends_on of node ${node.id} (directly or through another node)`;
  });
  return {
    ok: false,
    code: rendered.code,
    message: `node ${node.id}: ${field}: ${rendered.message}${hints.length > 0 ? ` (${hints.join('; ')})` : ''}`,
  };
}
