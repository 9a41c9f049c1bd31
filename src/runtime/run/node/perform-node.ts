import { projectDirOf } from '../../../store/index.js';
import { fixRequest, judgeCompletion, submitArtifact } from '../../../contracts/index.js';
import type { AttemptSubmission, Completion, ContractType, FieldError } from '../../../contracts/index.js';
import { concludeDocument } from '../../../ingest/index.js';
import { sha256Hex } from '../../../project/index.js';
import { eventsOffset, readAttemptSubmissions } from './read-attempt-submissions.js';
import { runCommandNode } from './run-command-node.js';
import { askAgent } from './run-node.js';
import type { NodeOutcome, NodeRunContext, PreparedNode } from './run-node.js';
import type { AgentUsage } from '../../agents/index.js';
import { MAX_STATE_FIELD_ERRORS } from '../../../runs/index.js';
import type { NodeContractState } from '../../../runs/index.js';
import { submitDocumentBlocks } from './submit-document-blocks.js';

/** One ask of a contract node that needs a fix: what it produced and why it is asked again. */
export interface FixNeeded {
  /** The ask that needs the fix, 1-based. */
  readonly ask: number;
  /** The re-asks left after this one is made. */
  readonly fixesLeft: number;
  /** How the ask ended: its document, or the agent's failure. */
  readonly outcome: NodeOutcome;
  readonly completion: Extract<Completion, { state: 'fix_needed' }>;
  /** sha256 of the prompt of the next ask (the original prompt plus the fix request). */
  readonly nextPromptSha256: string;
}

/** What the node loop hears while a node runs. */
export interface NodeHooks {
  /** Before a re-ask: the loop records the finished ask (trace, `node.fix_needed`, state) and starts the next. */
  readonly onFixNeeded: (fix: FixNeeded) => Promise<void>;
  /** Runs an ask's work (the agent call, its document's ingest) in the current attempt's live span. */
  readonly inAttempt?: <T>(work: () => Promise<T>) => Promise<T>;
  /** An agent call reported what it used (its model, its token counts): the loop records it. */
  readonly onAgentUsage?: (usage: AgentUsage) => void;
}

type Prepared = Extract<PreparedNode, { ok: true }>;
type Concluded = Extract<NodeOutcome, { status: 'completed' }>;

/**
 * Runs a prepared node to its end: an agent_task asks its agent (and, with `contract:`, re-asks it with a fix
 * request until completion detection says done, blocked, or the fix budget runs out); a write_file writes its
 * content; a command node runs its commands and submits `smoke_test_result`. Every document goes through the
 * ingest's one `concludeDocument`, and its contract blocks through `submitArtifact`.
 */
export async function performNode(
  context: NodeRunContext,
  prepared: Prepared,
  hooks: NodeHooks,
): Promise<NodeOutcome> {
  const { work } = prepared;
  switch (work.kind) {
    case 'content': {
      const concluded = await conclude(context, prepared, 'runtime', work.content);
      return concluded.outcome;
    }
    case 'commands':
      return performCommandNode(context, prepared, work);
    case 'agent':
      return performAgentNode(context, prepared, work, hooks);
  }
}

/** Checks a document's size, writes, records and ingests it, then submits its contract blocks (with or without a contract). */
async function conclude(
  context: NodeRunContext,
  prepared: Prepared,
  agentId: string,
  text: string,
): Promise<{ readonly outcome: NodeOutcome; readonly submissions: readonly AttemptSubmission[] }> {
  // Checked before concludeDocument: a document over a limit never reaches the disk, the records or the ingest.
  const refused = context.outputLimit.reserve(prepared.node.id, Buffer.byteLength(text, 'utf8'));
  if (refused !== undefined) {
    return { outcome: { status: 'failed', code: 'output_too_large', message: refused }, submissions: [] };
  }
  const outcome = await concludeDocument({
    project: context.project,
    root: context.root,
    runId: context.runId,
    nodeId: prepared.node.id,
    agentId,
    docPath: prepared.outputPath,
    text,
    records: context.recorder,
    events: context.events,
    subject: 'node',
    ingest: {
      enabled: context.ingest?.enabled === true,
      sourceKind: 'graph_runtime',
      mode: context.graph.mode,
      roots: context.ingestRoots,
      ...(context.ingest?.limits === undefined ? {} : { limits: context.ingest.limits }),
      ...(context.ingest?.parser === undefined ? {} : { parser: context.ingest.parser }),
      ...(context.ingest?.durability === undefined ? {} : { durability: context.ingest.durability }),
    },
  });
  if (outcome.status === 'failed') return { outcome, submissions: [] };
  const recorder = await context.recorder.artifactRecorder();
  const submissions = await submitDocumentBlocks({
    projectDir: context.project,
    runId: context.runId,
    nodeId: prepared.node.id,
    agentId,
    text: outcome.text,
    events: context.events,
    ...(recorder === undefined ? {} : { recorder }),
    ...(context.ingest?.durability === undefined ? {} : { durability: context.ingest.durability }),
    ...(context.ingest?.limits?.maxParseMs === undefined
      ? {}
      : { timeLimitMs: context.ingest.limits.maxParseMs }),
    ...(context.ingest?.parser === undefined ? {} : { parser: context.ingest.parser }),
    ...(context.ingest?.limits?.maxBlocks === undefined
      ? {}
      : { maxBlocks: context.ingest.limits.maxBlocks }),
  });
  return { outcome, submissions };
}

async function performAgentNode(
  context: NodeRunContext,
  prepared: Prepared,
  work: Extract<Prepared['work'], { kind: 'agent' }>,
  hooks: NodeHooks,
): Promise<NodeOutcome> {
  const { node } = prepared;
  const contract = node.contract;
  const maxFixes = context.budget.maxFixAttempts;
  let prompt = work.prompt;
  const inAttempt = hooks.inAttempt ?? ((task) => task());
  for (let ask = 1; ; ask += 1) {
    if (!context.budget.takeAgentCall(node.id)) {
      return {
        status: 'failed',
        code: 'budget_exceeded',
        message: context.budget.exceeded()?.reason ?? 'a budget ran out',
      };
    }
    const offset = await eventsOffset(context.project, context.runId);
    const asked = prompt;
    const reply = await inAttempt(() => askAgent(context, node, work.agent, asked, ask, hooks.onAgentUsage));
    // A stopped run (or max_minutes) never re-asks: the node ends here and a resume asks again.
    if (context.signal.aborted) {
      return reply.status === 'failed'
        ? reply
        : { status: 'failed', code: 'aborted', message: 'the run was stopped' };
    }
    if (reply.status === 'failed' && contract === undefined) return reply;
    // Read before this node's own document blocks are submitted: what is there now came from the agent.
    const external = await readAttemptSubmissions(context.project, context.runId, node.id, offset);
    let concluded: Concluded | undefined;
    let askOutcome: NodeOutcome =
      reply.status === 'failed' ? reply : { status: 'failed', code: 'agent_error', message: '' };
    let documentSubmissions: readonly AttemptSubmission[] = [];
    if (reply.status === 'replied') {
      const { text } = reply;
      const result = await inAttempt(() => conclude(context, prepared, work.agent.name, text));
      if (result.outcome.status === 'failed') return result.outcome;
      concluded = result.outcome;
      askOutcome = concluded;
      documentSubmissions = result.submissions;
    }
    if (contract === undefined) return askOutcome;
    const completion = judgeCompletion({
      contract,
      agent:
        reply.status === 'replied'
          ? { returned: true }
          : { returned: false, code: reply.code, message: reply.message },
      submissions: [...external, ...documentSubmissions],
    });
    switch (completion.state) {
      case 'done':
        if (concluded === undefined) break;
        return {
          ...concluded,
          contract: { type: contract, state: 'done', attempts: ask, artifact: completion.artifact },
        };
      case 'blocked':
        return {
          status: 'failed',
          code: 'blocked',
          message: `node ${node.id} is blocked: ${completion.reason}`,
          contract: contractState(contract, 'blocked', ask, completion.reason, [], completion.artifact),
        };
      case 'fix_needed': {
        if (ask > maxFixes) {
          const reask = maxFixes === 1 ? 're-ask' : 're-asks';
          return {
            status: 'failed',
            code: 'fix_needed',
            message: `node ${node.id} did not satisfy its ${contract} contract after ${String(maxFixes)} fix ${reask}: ${completion.reason}${lastErrors(completion.errors)}`,
            contract: contractState(contract, 'fix_needed', ask, completion.reason, completion.errors, null),
          };
        }
        const nextPrompt = `${work.prompt}\n\n${fixRequest(contract, completion, { number: ask, of: maxFixes })}`;
        await hooks.onFixNeeded({
          ask,
          fixesLeft: maxFixes - ask,
          outcome: askOutcome,
          completion,
          nextPromptSha256: sha256Hex(nextPrompt),
        });
        prompt = nextPrompt;
        continue;
      }
    }
    // judgeCompletion says done only for an agent that returned, whose document was concluded.
    throw new Error(`node ${node.id}: a done contract without a document`);
  }
}

async function performCommandNode(
  context: NodeRunContext,
  prepared: Prepared,
  work: Extract<Prepared['work'], { kind: 'commands' }>,
): Promise<NodeOutcome> {
  const { node } = prepared;
  const ran = await runCommandNode({
    nodeId: node.id,
    commands: work.commands,
    timeoutMs: work.timeoutMs,
    cwd: projectDirOf(context.project),
    env: context.env,
    signal: context.signal,
  });
  if (ran.status === 'aborted') {
    return { status: 'failed', code: 'aborted', message: `node ${node.id}: the run was stopped` };
  }
  const concluded = await conclude(context, prepared, 'runtime', ran.report);
  if (concluded.outcome.status === 'failed') return concluded.outcome;
  const recorder = await context.recorder.artifactRecorder();
  const submitted = await submitArtifact({
    projectDir: context.project,
    runId: context.runId,
    taskId: node.id,
    agentId: 'runtime',
    type: 'smoke_test_result',
    payload: ran.payload,
    events: context.events,
    ...(recorder === undefined ? {} : { recorder }),
    ...(context.ingest?.durability === undefined ? {} : { durability: context.ingest.durability }),
  });
  const contract: ContractType = node.contract ?? 'smoke_test_result';
  const completion = judgeCompletion({
    contract,
    agent: { returned: true },
    submissions: [
      ...concluded.submissions,
      submitted.ok
        ? { accepted: true, type: submitted.type, path: submitted.path, payload: ran.payload }
        : { accepted: false, type: 'smoke_test_result', errors: submitted.errors },
    ],
  });
  switch (completion.state) {
    case 'done':
      return {
        ...concluded.outcome,
        contract: { type: contract, state: 'done', attempts: 1, artifact: completion.artifact },
      };
    case 'blocked':
      return {
        status: 'failed',
        code: 'blocked',
        message: `node ${node.id} is blocked: ${completion.reason} (${ran.payload.summary})`,
        contract: contractState(contract, 'blocked', 1, completion.reason, [], completion.artifact),
      };
    case 'fix_needed':
      // Running the same commands again would give the same result: a command node is never re-asked.
      return {
        status: 'failed',
        code: 'fix_needed',
        message: `node ${node.id}: ${completion.reason}${submitted.ok ? '' : ` (${submitted.message})`}`,
        contract: contractState(contract, 'fix_needed', 1, completion.reason, completion.errors, null),
      };
  }
}

function contractState(
  type: ContractType,
  state: 'fix_needed' | 'blocked',
  attempts: number,
  reason: string,
  errors: readonly FieldError[],
  artifact: string | null,
): NodeContractState {
  return {
    type,
    state,
    attempts,
    ...(artifact === null ? {} : { artifact }),
    reason,
    ...(errors.length === 0 ? {} : { errors: errors.slice(0, MAX_STATE_FIELD_ERRORS) }),
  };
}

/** The last errors, for a message: at most three, then how many more. */
function lastErrors(errors: readonly FieldError[]): string {
  if (errors.length === 0) return '';
  const shown = errors.slice(0, 3).map((error) => error.message);
  const more = errors.length > 3 ? `; and ${String(errors.length - 3)} more` : '';
  return ` (${shown.join('; ')}${more})`;
}
