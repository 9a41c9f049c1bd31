import path from 'node:path';
import { closestMatch, ConfigError, parseYamlWithSchema, quoteSourceText } from '../../config/index.js';
import { sha256Hex, WORKFLOWS_DIR } from '../../project/index.js';
import { BUILTIN_WORKFLOW_NAMES, BUILTIN_WORKFLOW_YAML } from './builtin-workflows.js';
import { readProjectWorkflow } from './read-project-workflow.js';
import { projectWorkflowNames, resolveWorkflowReference } from './resolve-workflow-reference.js';
import type { WorkflowReferenceOptions } from './resolve-workflow-reference.js';
import type { WorkflowBody, WorkflowDefinition } from './workflow-definition.js';
import { WorkflowReferenceError } from './workflow-reference-error.js';
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
export type LoadWorkflowOptions = WorkflowReferenceOptions;

// Bounded, so a long-lived server that loads many distinct definitions keeps a fixed amount of memory.
const CACHE_LIMIT = 64;
const bodies = new Map<string, WorkflowBody>();

/** How much of a refused reference its message quotes. */
const MAX_QUOTED_REFERENCE = 200;

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
 * YAML file under the project's `workflows/`, relative to `options.cwd`, that stays inside the project once
 * its symlinks are resolved (docs/workflows.md, "Where definitions come from"). Anything else is refused with
 * one `ConfigError` before any of it is read, whatever is there; an unknown name suggests the names it knows.
 */
export async function loadWorkflow(ref: string, options: LoadWorkflowOptions): Promise<WorkflowDefinition> {
  const found = await resolveWorkflowReference(ref, options);
  switch (found.kind) {
    case 'builtin':
      return parseWorkflow(BUILTIN_WORKFLOW_YAML[found.name], `builtin:${found.name}`);
    case 'project_file': {
      const text = await readProjectWorkflow(found.file);
      if (text === undefined) throw notInProject(ref);
      const definition = parseWorkflow(text, found.file.shownAs);
      return found.name === undefined ? definition : checkedName(definition, found.name);
    }
    case 'unknown_name': {
      const known = await knownNames(options.projectDir);
      const suggestion = closestMatch(ref, known);
      const advice = suggestion === undefined ? '' : `did you mean "${suggestion}"? `;
      throw new WorkflowReferenceError(
        'unknown_name',
        ref,
        `no workflow named "${ref}" in ${WORKFLOWS_DIR}/ or the built-ins; ${advice}the workflows are: ${known.join(', ')}; or give the path of a YAML file under ${WORKFLOWS_DIR}/`,
      );
    }
    case 'missing_file': {
      const known = await knownNames(options.projectDir);
      throw new WorkflowReferenceError(
        'missing_file',
        found.shownAs,
        `no such workflow file ${found.shownAs}; name a workflow (${known.join(', ')}) or a YAML file under ${WORKFLOWS_DIR}/`,
      );
    }
    case 'not_in_project':
      throw notInProject(ref);
  }
}

/** A file of the project's `workflows/` that `workflow_list` shows but cannot offer: it does not load. */
export interface BrokenWorkflow {
  /** The name it would be started by (its file name without `.yaml`). */
  readonly name: string;
  /** The file, relative to the project root: `workflows/<name>.yaml`. */
  readonly file: string;
  /** The text of the `ConfigError` loading it gives, word for word (the lines it names, each quoted redacted). */
  readonly error: string;
}

/** What `workflow_list` returns: the workflows that load, and each project file that does not. */
export interface WorkflowListing {
  readonly workflows: WorkflowSummary[];
  readonly broken: BrokenWorkflow[];
}

/**
 * The project's workflows (`workflows/*.yaml`) and the built-ins it does not override, as `workflow_list`
 * shows them; a project file that does not load (invalid, misnamed, a FIFO, too big, or a symlink leading
 * outside, which is never read) is in `broken` with its `ConfigError`'s text instead, and still overrides the
 * built-in of its name, as loading does. Only `workflows/` itself leading outside is thrown, unread: then
 * nothing, not even a built-in, can be loaded.
 */
export async function listWorkflows(projectDir: string): Promise<WorkflowListing> {
  const names = await projectWorkflowNames(projectDir);
  if (names === 'away')
    throw leadsOutside(path.join(projectDir, WORKFLOWS_DIR), 'make workflows/ a folder of the project');
  const workflows: WorkflowSummary[] = [];
  const broken: BrokenWorkflow[] = [];
  const overridden = new Set<string>();
  for (const name of names) {
    try {
      const summary = await projectSummary(projectDir, name);
      if (summary === undefined) continue;
      workflows.push(summary);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      broken.push({ name, file: `${WORKFLOWS_DIR}/${name}.yaml`, error: error.message });
    }
    overridden.add(name);
  }
  for (const name of BUILTIN_WORKFLOW_NAMES) {
    if (!overridden.has(name))
      workflows.push(summarize(parseWorkflow(BUILTIN_WORKFLOW_YAML[name], `builtin:${name}`)));
  }
  return { workflows, broken };
}

/**
 * The summary of `workflows/<name>.yaml`, or undefined when it was removed since the folder was read; its
 * `ConfigError` when it does not load or leads outside the project (unread).
 */
async function projectSummary(projectDir: string, name: string): Promise<WorkflowSummary | undefined> {
  const found = await resolveWorkflowReference(name, { projectDir, cwd: projectDir });
  const shownAs = path.join(projectDir, WORKFLOWS_DIR, `${name}.yaml`);
  switch (found.kind) {
    case 'project_file': {
      const text = await readProjectWorkflow(found.file);
      if (text === undefined) throw leadsOutside(shownAs, 'put the file itself under workflows/');
      return summarize(checkedName(parseWorkflow(text, found.file.shownAs), name));
    }
    case 'not_in_project':
      throw leadsOutside(shownAs, 'put the file itself under workflows/');
    case 'builtin':
    case 'unknown_name':
    case 'missing_file':
      // Removed since the folder was read.
      return undefined;
  }
}

/** The one refusal of a reference that is not a built-in or a file under workflows/ inside the project. */
function notInProject(ref: string): WorkflowReferenceError {
  const quoted = quoteSourceText(ref, MAX_QUOTED_REFERENCE);
  return new WorkflowReferenceError(
    'not_in_project',
    quoted,
    `workflow ${quoted} is not a workflow of this project: name a built-in (${BUILTIN_WORKFLOW_NAMES.join(', ')}) or a YAML file under ${WORKFLOWS_DIR}/ that stays inside the project; nothing outside the project is read`,
  );
}

/** A listed entry (or workflows/ itself) that is a symlink leading outside the project or to nothing. */
function leadsOutside(shownAs: string, fix: string): ConfigError {
  return new ConfigError(shownAs, [
    {
      path: '',
      message: `leads outside the project (a symlink); workflows are read only from inside the project: ${fix}`,
    },
  ]);
}

function summarize(definition: WorkflowDefinition): WorkflowSummary {
  const { name, version, description, inputs } = definition;
  return { name, version, description, steps: definition.steps.length, inputs };
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

/** The project's workflow names and the built-ins, for messages; none of workflows/ when it leads outside. */
async function knownNames(projectDir: string): Promise<string[]> {
  const names = await projectWorkflowNames(projectDir);
  return [...new Set([...(names === 'away' ? [] : names), ...BUILTIN_WORKFLOW_NAMES])];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
