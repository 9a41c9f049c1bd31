import path from 'node:path';
import { isId, WORKFLOWS_DIR } from '../../project/index.js';
import { quickFs } from '../../workspace/index.js';
import { isBuiltinWorkflowName } from './builtin-workflows.js';
import type { BuiltinWorkflowName } from './builtin-workflows.js';

declare const foundInsideProject: unique symbol;

/**
 * A workflow file under the project's `workflows/` whose real location (every symlink resolved) is inside the
 * project: the only thing the workflow reader opens. Only {@link resolveWorkflowReference} makes one, so no
 * path a client sent reaches a read, or an error that quotes a file, without passing it.
 */
export interface ProjectWorkflowFile {
  /** The file's real path, inside the project's real path: what is opened (with O_NOFOLLOW). */
  readonly realPath: string;
  /** How messages name it: the path as the project spells it, `<projectDir>/workflows/...`. */
  readonly shownAs: string;
  readonly [foundInsideProject]: true;
}

/** What a workflow reference names, decided before any workflow file is read. */
export type WorkflowReference =
  | { readonly kind: 'builtin'; readonly name: BuiltinWorkflowName }
  /** A file under workflows/; `name` when it was named (`name: ` must then say the same). */
  | { readonly kind: 'project_file'; readonly file: ProjectWorkflowFile; readonly name?: string }
  /** A name with no `workflows/<name>.yaml` and no built-in. */
  | { readonly kind: 'unknown_name'; readonly name: string }
  /** A path under workflows/ where nothing is (judged inside the project only). */
  | { readonly kind: 'missing_file'; readonly shownAs: string }
  /**
   * Anything else: outside the project (lexically or through a symlink, existing or not), inside it but not a
   * YAML file under workflows/. One kind, so the answer never tells whether something outside exists.
   */
  | { readonly kind: 'not_in_project' };

/** Where a reference is resolved: the project, and the folder a relative path is relative to. */
export interface WorkflowReferenceOptions {
  readonly projectDir: string;
  readonly cwd: string;
}

const NOT_IN_PROJECT: WorkflowReference = Object.freeze({ kind: 'not_in_project' });

/** A YAML file's name: what a path under workflows/ must end with. */
const YAML_FILE = /\.ya?ml$/;

/** Whether `ref` is a workflow name (an id not ending in .yaml/.yml), not a path. */
export function isWorkflowName(ref: string): boolean {
  return isId(ref) && !YAML_FILE.test(ref);
}

/**
 * Decides what a workflow reference names without reading any workflow file: a name is
 * `workflows/<name>.yaml`, else a built-in; a path (relative to `cwd`, `..` resolved as text) must be a YAML
 * file under the project's `workflows/` whose every symlink, resolved, stays inside the project. Only
 * metadata of entries inside the project is consulted (lstat of each component, realpath of each symlink),
 * with the workspace's calls on the calling thread (D81).
 */
export async function resolveWorkflowReference(
  ref: string,
  options: WorkflowReferenceOptions,
): Promise<WorkflowReference> {
  if (ref.includes('\0')) return NOT_IN_PROJECT;
  const projectDir = path.resolve(options.projectDir);
  const projectReal = await quickFs.realpath(projectDir);
  if (isWorkflowName(ref)) {
    const components = [WORKFLOWS_DIR, `${ref}.yaml`];
    const found = await locateInProject(projectReal, components);
    switch (found.kind) {
      case 'inside':
        return { kind: 'project_file', name: ref, file: projectFile(found.realPath, projectDir, components) };
      case 'missing':
        return isBuiltinWorkflowName(ref)
          ? { kind: 'builtin', name: ref }
          : { kind: 'unknown_name', name: ref };
      case 'away':
        return NOT_IN_PROJECT;
    }
  }
  const components = underWorkflows(path.resolve(options.cwd, ref), [projectDir, projectReal]);
  if (components === undefined) return NOT_IN_PROJECT;
  const found = await locateInProject(projectReal, components);
  switch (found.kind) {
    case 'inside':
      return { kind: 'project_file', file: projectFile(found.realPath, projectDir, components) };
    case 'missing':
      return { kind: 'missing_file', shownAs: path.join(projectDir, ...components) };
    case 'away':
      return NOT_IN_PROJECT;
  }
}

/**
 * The names of the project's `workflows/*.yaml` files (those that are workflow names), sorted; none when the
 * folder does not exist, `away` when workflows/ is a symlink that leads outside the project (never listed).
 */
export async function projectWorkflowNames(projectDir: string): Promise<readonly string[] | 'away'> {
  const folder = await locateInProject(await quickFs.realpath(projectDir), [WORKFLOWS_DIR]);
  if (folder.kind === 'away') return 'away';
  if (folder.kind === 'missing') return [];
  let entries: string[];
  try {
    entries = await quickFs.readdir(folder.realPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.endsWith('.yaml'))
    .map((entry) => entry.slice(0, -'.yaml'.length))
    .filter(isWorkflowName)
    .sort();
}

/**
 * The components of `absolute` below the first root that holds it, when they name a YAML file under
 * workflows/ (`workflows/a.yaml`, `workflows/team/b.yml`); undefined for anything else.
 */
function underWorkflows(absolute: string, roots: readonly string[]): string[] | undefined {
  for (const root of roots) {
    const relative = path.relative(root, absolute);
    if (!isBelow(relative)) continue;
    const components = relative.split(path.sep);
    const last = components[components.length - 1] ?? '';
    if (components.length < 2 || components[0] !== WORKFLOWS_DIR || !YAML_FILE.test(last)) return undefined;
    return components;
  }
  return undefined;
}

type Located =
  | { readonly kind: 'inside'; readonly realPath: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'away' };

/**
 * Walks `components` from the project's real path, one lstat per component: a missing entry is `missing`
 * (every folder walked is a real folder of the project, so this says nothing of outside); a symlink is
 * resolved with realpath and must land inside the project, else (outside, dangling, a loop) it is `away`.
 */
async function locateInProject(projectReal: string, components: readonly string[]): Promise<Located> {
  let current = projectReal;
  for (const name of components) {
    const entry = path.join(current, name);
    let isLink: boolean;
    try {
      isLink = (await quickFs.lstat(entry)).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return { kind: 'missing' };
      throw error;
    }
    if (!isLink) {
      current = entry;
      continue;
    }
    let target: string;
    try {
      target = await quickFs.realpath(entry);
    } catch {
      // Dangling, a loop, or unreachable: answered as outside, so a symlink cannot probe what exists there.
      return { kind: 'away' };
    }
    if (!isInside(projectReal, target)) return { kind: 'away' };
    current = target;
  }
  return { kind: 'inside', realPath: current };
}

function isInside(root: string, candidate: string): boolean {
  return isBelow(path.relative(root, candidate));
}

/** Whether a `path.relative` result goes down from its base (not the base itself, not up, not elsewhere). */
function isBelow(relative: string): boolean {
  return (
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
}

function projectFile(
  realPath: string,
  projectDir: string,
  components: readonly string[],
): ProjectWorkflowFile {
  // The one place a ProjectWorkflowFile is made: after the walk found it inside the project.
  return { realPath, shownAs: path.join(projectDir, ...components) } as ProjectWorkflowFile;
}
