import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  ARTIFACT_SCHEMAS,
  CONTRACT_EXAMPLES,
  CONTRACT_TYPES,
  readContractBlocks,
  reduceArtifact,
  renderContractDoc,
  validateArtifactText,
} from '../../../src/contracts/index.js';
import type { ContractType } from '../../../src/contracts/index.js';

async function published(type: ContractType): Promise<string> {
  return readFile(new URL(`../../../docs/contracts/${type}.md`, import.meta.url), 'utf8');
}

describe('renderContractDoc', () => {
  it.each(CONTRACT_TYPES)('docs/contracts/%s.md is fresh (npm run fixtures:regen)', async (type) => {
    expect(await published(type)).toBe(renderContractDoc(type));
  });

  it.each(CONTRACT_TYPES)('lists every top-level key of %s in the field table', (type) => {
    const doc = renderContractDoc(type);
    for (const key of Object.keys(ARTIFACT_SCHEMAS[type].shape)) expect(doc).toContain(`| \`${key}\``);
  });

  it.each(CONTRACT_TYPES)('shows the %s example as a block that validates and advances', async (type) => {
    const { blocks } = await readContractBlocks(renderContractDoc(type));
    expect(blocks).toHaveLength(1);
    const [block] = blocks;
    expect(block).toMatchObject({ type, closed: true });
    const validation = validateArtifactText(type, block?.json ?? '');
    expect(validation.ok).toBe(true);
    expect(JSON.parse(block?.json ?? '')).toEqual(CONTRACT_EXAMPLES[type]);
    if (validation.ok) expect(reduceArtifact(type, validation.payload)).toEqual({ advance: true });
  });

  it.each(CONTRACT_TYPES)('tells how to submit %s: block, MCP tool and CLI', (type) => {
    const doc = renderContractDoc(type);
    expect(doc).toContain(`\`\`\`json artifact=${type}`);
    expect(doc).toContain('`submit_artifact`');
    expect(doc).toContain(`artifact-ingest submit ${type} FILE --run-id ID`);
    expect(doc).toContain(`.agent/artifacts/<run_id>/${type}.json`);
    expect(doc).toMatch(
      /## When it advances\n\nA node or step with `contract: \w+` is done when .+ It (always )?advances/,
    );
  });
});
