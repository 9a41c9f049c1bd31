/**
 * The stress run's temp projects: fresh temp roots, fenced blocks, the project workflows the MCP scenarios
 * drive, and readers of what a run left.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ShapeStep } from './count-workflow-problems.js';

/** A fresh temp folder for one scenario. */
export async function tempRoot(label: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `artifact-ingest-stress-${label}-`));
}

/** One ```txt file= block. */
export function fence(file: string, body: string): string {
  return `\`\`\`txt file=${file}\n${body}\n\`\`\`\n`;
}

/** `bytes` of text that no other call returns (a random tag repeated). */
export function uniqueText(bytes: number, label: string): string {
  return `${label} ${randomBytes(8).toString('hex')} `.repeat(Math.ceil(bytes / 24) + 1).slice(0, bytes);
}

/**
 * The workflow the MCP kill and swap scenarios drive: an action step, a loop over the `parts` input, a ralph
 * step of two passes and a last action step, every one saving its output and the first three tracking files.
 */
export const STRESS_WORKFLOW = `name: stress
version: '1'
description: Plan, build each part, polish twice, review
inputs: [parts]
steps:
  - id: plan
    artefacts: true
    instructions: 'Plan the parts: {parts}'
    save_as: plan
  - id: build
    type: loop
    over: parts
    artefacts: true
    instructions: 'Build part {task.index} of {task.total}: {task}.'
    save_as: built
  - id: polish
    type: ralph
    n: 2
    artefacts: true
    instructions: 'Polish, pass {iteration} of {n}.'
    save_as: polished
  - id: review
    instructions: 'Review the files.'
    save_as: review
`;

/** {@link STRESS_WORKFLOW}'s steps, for the lost-event and snapshot counts. */
export const STRESS_SHAPE: readonly ShapeStep[] = [
  { id: 'plan', type: 'action' },
  { id: 'build', type: 'loop' },
  { id: 'polish', type: 'ralph', n: 2 },
  { id: 'review', type: 'action' },
];

/** The `parts` input of {@link STRESS_WORKFLOW}: three loop passes. */
export const STRESS_PARTS = ['parser', 'writer', 'records'] as const;

/** The workflow two racing servers advance: one loop step over the `items` input. */
export const RACE_WORKFLOW = `name: race
version: '1'
description: One loop pass per item
inputs: [items]
steps:
  - id: grind
    type: loop
    over: items
    artefacts: true
    instructions: 'Item {task.index}: {task}.'
    save_as: ground
`;

/** A workflow of one action step that saves its output: the hostile documents' way in over MCP. */
export const ONE_STEP_WORKFLOW = `name: one
version: '1'
description: One document
steps:
  - id: write
    instructions: 'Write the document.'
    save_as: doc
`;

/** Creates a project folder with `workflows/<name>.yaml` for each workflow given. */
export async function createProject(
  projectDir: string,
  workflows: Readonly<Record<string, string>>,
): Promise<void> {
  await mkdir(path.join(projectDir, 'workflows'), { recursive: true });
  for (const [name, text] of Object.entries(workflows)) {
    await writeFile(path.join(projectDir, 'workflows', `${name}.yaml`), text);
  }
}

/** A file's text, or undefined when it cannot be read. */
export async function readTextOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A run's state.json parsed: the object, `torn` when it exists but does not parse, undefined when absent. */
export async function readRunState(
  projectDir: string,
  runId: string,
): Promise<Record<string, unknown> | 'torn' | undefined> {
  const text = await readTextOrUndefined(path.join(projectDir, '.agent/runs', runId, 'state.json'));
  if (text === undefined) return undefined;
  try {
    const state: unknown = JSON.parse(text);
    return typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : 'torn';
  } catch {
    return 'torn';
  }
}

/** A run's events.jsonl ('' when absent). */
export async function readRunEvents(projectDir: string, runId: string): Promise<string> {
  return (await readTextOrUndefined(path.join(projectDir, '.agent/runs', runId, 'events.jsonl'))) ?? '';
}

/** The environment that turns ingest on for a server or a CLI child (docs/configuration.md). */
export const INGEST_ON = { ARTIFACT_INGEST: '1' } as const;
