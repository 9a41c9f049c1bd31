import { contractSummary } from '../../contracts/index.js';
import type { ContractType } from '../../contracts/index.js';
import {
  renderWorkflowTemplate,
  type RenderResult,
  type TemplateValues,
} from './render-workflow-template.js';
import type { WorkflowStep } from './workflow-definition.js';

/** Appended verbatim to a step with `artefacts: true` (seed 000; spec workflow-mcp.md, "Definitions"). */
export const ARTEFACTS_INSTRUCTION =
  'You are expected to create output files during this step. Once you have created a file, you MUST call the `register_artefacts` tool with the path to the file(s). Do not stop the step without registering your work.';

/**
 * Appended to a step with `contract:`: what the pass must submit, the two ways to submit it, and what the type
 * requires (`contractSummary`, which names the MCP resource of its full format).
 */
export function contractInstruction(contract: ContractType): string {
  return `This step is done only when you have submitted a ${contract} artifact: call the \`submit_artifact\` tool with type "${contract}" and the JSON payload, or put it in your output as one fenced block opened with \`\`\`json artifact=${contract}. Then call workflow_advance.\n${contractSummary(contract)}`;
}

/** The line that opens the instructions of a step delegated to `agent`, before a blank line. */
export function spawnLine(agent: string): string {
  return `SPAWN the '${agent}' sub-agent to handle this step:`;
}

/**
 * A step's final instructions for one pass: its template rendered with `values` (trimmed), the artefacts
 * sentence appended when `artefacts: true`, then the contract sentence when `contract:` is set, and the SPAWN
 * line first when an `agent` is set; all or nothing.
 */
export function assembleInstructions(
  step: Pick<WorkflowStep, 'template' | 'artefacts' | 'agent' | 'contract'>,
  values: TemplateValues,
): RenderResult {
  const rendered = renderWorkflowTemplate(step.template, values);
  if (!rendered.ok) return rendered;
  let text = rendered.text.trim();
  if (step.artefacts) text = text === '' ? ARTEFACTS_INSTRUCTION : `${text}\n\n${ARTEFACTS_INSTRUCTION}`;
  if (step.contract !== undefined) {
    const sentence = contractInstruction(step.contract);
    text = text === '' ? sentence : `${text}\n\n${sentence}`;
  }
  if (step.agent !== undefined) text = `${spawnLine(step.agent)}\n\n${text}`;
  return { ok: true, text };
}
