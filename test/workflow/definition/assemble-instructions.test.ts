import { describe, expect, it } from 'vitest';
import { contractSummary } from '../../../src/contracts/index.js';
import {
  ARTEFACTS_INSTRUCTION,
  assembleInstructions,
  contractInstruction,
  spawnLine,
} from '../../../src/workflow/definition/assemble-instructions.js';
import {
  parseWorkflowTemplate,
  type WorkflowTemplate,
} from '../../../src/workflow/definition/workflow-template.js';

function template(text: string): WorkflowTemplate {
  const parsed = parseWorkflowTemplate(text);
  if (!parsed.ok) throw new Error(parsed.problems[0]?.message);
  return parsed.template;
}

// Copied from spec workflow-mcp.md ("Definitions"), which quotes seed 000: it must not change by a byte.
const SEED_SENTENCE =
  'You are expected to create output files during this step. Once you have created a file, you MUST call the ' +
  '`register_artefacts` tool with the path to the file(s). Do not stop the step without registering your work.';

describe('assembleInstructions', () => {
  it('keeps the artefacts sentence byte for byte as the spec quotes it', () => {
    expect(ARTEFACTS_INSTRUCTION).toBe(SEED_SENTENCE);
    expect(Buffer.byteLength(ARTEFACTS_INSTRUCTION)).toBe(Buffer.byteLength(SEED_SENTENCE));
  });

  it.each<[string, { artefacts: boolean; agent?: string; contract?: 'issues' }, string]>([
    ['plain instructions, trimmed', { artefacts: false }, 'Scope login.'],
    ['the artefacts sentence after a blank line', { artefacts: true }, `Scope login.\n\n${SEED_SENTENCE}`],
    [
      'the SPAWN line and a blank line first',
      { artefacts: false, agent: 'coder' },
      "SPAWN the 'coder' sub-agent to handle this step:\n\nScope login.",
    ],
    [
      'both, the SPAWN line before the instructions and the sentence after them',
      { artefacts: true, agent: 'coder' },
      `SPAWN the 'coder' sub-agent to handle this step:\n\nScope login.\n\n${SEED_SENTENCE}`,
    ],
    [
      'the contract sentence after the artefacts sentence',
      { artefacts: true, agent: 'coder', contract: 'issues' },
      `SPAWN the 'coder' sub-agent to handle this step:\n\nScope login.\n\n${SEED_SENTENCE}\n\n${contractInstruction('issues')}`,
    ],
  ])('assembles %s', (_, step, expected) => {
    const result = assembleInstructions(
      { ...step, template: template('\n  Scope {feature}.\n\n') },
      { feature: 'login' },
    );
    expect(result).toEqual({ ok: true, text: expected });
  });

  it('names the type, both ways to submit and the fields of the type in the contract sentence', () => {
    const sentence = contractInstruction('issues');
    expect(sentence.endsWith(`Then call workflow_advance.\n${contractSummary('issues')}`)).toBe(true);
    expect(sentence).not.toContain('docs/contracts');
    expect(sentence).toContain('`submit_artifact` tool with type "issues"');
    expect(sentence).toContain('```json artifact=issues');
  });

  it('writes the SPAWN line with the agent in single quotes', () => {
    expect(spawnLine('reviewer')).toBe("SPAWN the 'reviewer' sub-agent to handle this step:");
  });

  it('returns the missing variable and no text at all when a value is missing', () => {
    const result = assembleInstructions(
      { artefacts: true, agent: 'coder', template: template('Scope {feature}.') },
      {},
    );
    expect(result).toMatchObject({ ok: false, code: 'missing_value' });
    expect(result.ok ? [] : result.problems.map((problem) => problem.token)).toEqual(['{feature}']);
  });
});
