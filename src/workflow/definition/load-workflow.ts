import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { closestMatch, ConfigError, parseYamlWithSchema, readConfigText } from '../../config/index.js';
import { isId, sha256Hex, WORKFLOWS_DIR } from '../../project/index.js';
import { BUILTIN_WORKFLOW_NAMES, BUILTIN_WORKFLOW_YAML, isBuiltinWorkflowName } from './builtin-workflows.js';
import type { WorkflowBody, WorkflowDefinition } from './workflow-definition.js';
import { WORKFLOW_KEYS, workflowSchema } from './workflow-schema.js';

/** What `workflow_list` shows of one definition. */
export interface WorkflowSummary {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** How many steps it has. */
  readonly steps: number;
  readonly inputs: readonly string[];
}

/** Where to look a workflow up: the project (for `workflows/`) and the folder a path is relative to. */
export interface LoadWorkflowOptions {
  readonly projectDir: string;
  readonly cwd: string;
}

// Bounded, so a long-lived server that loads many distinct definitions keeps a fixed amount of memory.
const CACHE_LIMIT = 64;
const bodies = new Map<string, WorkflowBody>();

/**
 * Parses and validates a workflow's YAML text, throwing a `ConfigError` that lists every problem with its
 * line and column; the body is cached by the text's sha256, and the result carries that hash and the text.
 */
export function parseWorkflow(text: string, source: string): WorkflowDefinition {
  const hash = sha256Hex(text);
  let body = bodies.get(hash);
  if (body === undefined) {
    body = deepFreeze(parseYamlWithSchema(text, source, workflowSchema, WORKFLOW_KEYS));
    bodies.set(hash, body);
    // Maps iterate in insertion order: the first key is the oldest.
    if (bodies.size > CACHE_LIMIT) bodies.delete(bodies.keys().next().value ?? '');
  }
  return Object.freeze({ ...body, hash, text, source });
}

/**
 * Loads a workflow by name (the project's `workflows/<name>.yaml`, then the built-ins) or by the path of a
 * YAML file relative to `options.cwd`; a missing one is a `ConfigError` suggesting the names it knows.
 */
export async function loadWorkflow(ref: string, options: LoadWorkflowOptions): Promise<WorkflowDefinition> {
  if (isId(ref) && !/\.ya?ml$/.test(ref)) {
    const file = projectWorkflowFile(options.projectDir, ref);
    const text = await readConfigText(file);
    if (text !== undefined) return checkedName(parseWorkflow(text, file), ref);
    if (isBuiltinWorkflowName(ref)) return parseWorkflow(BUILTIN_WORKFLOW_YAML[ref], `builtin:${ref}`);
    const known = await knownNames(options.projectDir);
    const suggestion = closestMatch(ref, known);
    const advice = suggestion === undefined ? '' : `did you mean "${suggestion}"? `;
    throw new ConfigError(ref, [
      {
        path: '',
        message: `no workflow named "${ref}" in ${WORKFLOWS_DIR}/ or the built-ins; ${advice}the workflows are: ${known.join(', ')}; or give a YAML file's path`,
      },
    ]);
  }
  const file = path.resolve(options.cwd, ref);
  const text = await readConfigText(file);
  if (text === undefined) {
    const known = await knownNames(options.projectDir);
    throw new ConfigError(file, [
      {
        path: '',
        message: `no such workflow file; give a YAML file's path or a workflow name: ${known.join(', ')}`,
      },
    ]);
  }
  return parseWorkflow(text, file);
}

/**
 * The project's workflows (`workflows/*.yaml`) and the built-ins it does not override, as `workflow_list`
 * shows them; a broken project definition is thrown as its `ConfigError`.
 */
export async function listWorkflows(projectDir: string): Promise<WorkflowSummary[]> {
  const summaries: WorkflowSummary[] = [];
  for (const name of await projectNames(projectDir)) {
    const file = projectWorkflowFile(projectDir, name);
    const text = await readConfigText(file);
    if (text !== undefined) summaries.push(summarize(checkedName(parseWorkflow(text, file), name)));
  }
  const overridden = new Set(summaries.map((summary) => summary.name));
  for (const name of BUILTIN_WORKFLOW_NAMES) {
    if (!overridden.has(name))
      summaries.push(summarize(parseWorkflow(BUILTIN_WORKFLOW_YAML[name], `builtin:${name}`)));
  }
  return summaries;
}

function summarize(definition: WorkflowDefinition): WorkflowSummary {
  const { name, version, description, inputs } = definition;
  return { name, version, description, steps: definition.steps.length, inputs };
}

function projectWorkflowFile(projectDir: string, name: string): string {
  return path.join(projectDir, WORKFLOWS_DIR, `${name}.yaml`);
}

// A definition found by name must be called that name, or listing and loading would disagree.
function checkedName(definition: WorkflowDefinition, fileName: string): WorkflowDefinition {
  if (definition.name === fileName) return definition;
  throw new ConfigError(definition.source, [
    {
      path: 'name',
      message: `the workflow is named "${definition.name}" but its file is ${fileName}.yaml; rename the file to ${definition.name}.yaml or write name: ${fileName}`,
    },
  ]);
}

/** The names of the project's `workflows/*.yaml` files, sorted; none when the folder does not exist. */
async function projectNames(projectDir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(path.join(projectDir, WORKFLOWS_DIR));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.endsWith('.yaml'))
    .map((entry) => entry.slice(0, -'.yaml'.length))
    .filter(isId)
    .sort();
}

async function knownNames(projectDir: string): Promise<string[]> {
  const names = await projectNames(projectDir);
  return [...new Set([...names, ...BUILTIN_WORKFLOW_NAMES])];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
