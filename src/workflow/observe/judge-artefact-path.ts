import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_DIR } from '../../project/index.js';
import { checkDeclaredPath, errnoOf } from '../../workspace/index.js';
import type { PathRuleCode } from '../../workspace/index.js';

/** Why a path given to register_artefacts is `invalid`: a path rule of ingest, or what the filesystem shows. */
export type RegistrationProblemCode =
  | PathRuleCode
  /** Resolves outside the project root. */
  | 'outside_project'
  /** Inside `.agent/`, the engine's own records. */
  | 'agent_dir'
  /** A component of the path (or the file itself) is a symbolic link; links are never followed. */
  | 'symlink'
  /** Nothing exists at the path. */
  | 'not_found'
  /** The path names a folder, a FIFO, a device or the project root, not a regular file. */
  | 'not_a_regular_file';

/** The verdict on one path: its project-relative form and an open handle on the file, or why it is invalid. */
export type ArtefactPathVerdict =
  | { readonly ok: true; readonly path: string; readonly handle: FileHandle }
  | { readonly ok: false; readonly code: RegistrationProblemCode; readonly message: string };

/** The project root as given and as resolved, so absolute paths through either spelling are recognised. */
export interface ProjectRoot {
  readonly given: string;
  readonly real: string;
}

/**
 * Judges one path given to register_artefacts: absolute or project-relative, by ingest's path rules on its
 * project-relative form, then on the filesystem with lstat (never following a link); an `ok` verdict carries
 * the file opened with O_NOFOLLOW and checked to be the same inode the walk saw, for the caller to read and close.
 */
export async function judgeArtefactPath(root: ProjectRoot, raw: string): Promise<ArtefactPathVerdict> {
  if (raw.trim() === '') return invalid('empty_path', raw, 'is empty; name a file inside the project');
  const relative = projectRelative(root, raw);
  if (relative === undefined) {
    return invalid('outside_project', raw, 'is outside the project; register only files inside the project');
  }
  // path.resolve drops a trailing '/', which names a folder; never turn it into a file.
  if (relative === '' || raw.endsWith('/')) {
    return invalid('not_a_regular_file', raw, 'names a folder; register a file inside it');
  }
  // Lexically `src/../a.ts` is inside, but `src` may be a symlink that the OS would follow before the '..'.
  if (raw.split(/[\\/]/).includes('..')) {
    return invalid(
      'traversal',
      raw,
      "contains a '..' segment; name the file by its path from the project root",
    );
  }
  const rule = checkDeclaredPath(relative);
  if (!rule.ok) {
    // The ingest messages speak of `file=` blocks and workspace/; here the subject is a registered path.
    const reason = rule.message.replace(/^file= path /, '').replaceAll('workspace/', 'the project');
    return invalid(rule.code, raw, reason);
  }
  const components = rule.path.split('/');
  if (components[0]?.toLowerCase() === AGENT_DIR) {
    return invalid(
      'agent_dir',
      raw,
      `is inside ${AGENT_DIR}/, the engine's own records; register your own files`,
    );
  }
  return judgeOnDisk(root.given, raw, rule.path, components);
}

/** Walks the components with lstat, then opens the file without following a link and checks it is the same one. */
async function judgeOnDisk(
  projectDir: string,
  raw: string,
  relative: string,
  components: readonly string[],
): Promise<ArtefactPathVerdict> {
  let current = projectDir;
  let last: Awaited<ReturnType<typeof lstat>> | undefined;
  for (const component of components) {
    current = path.join(current, component);
    try {
      last = await lstat(current);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOENT' || errno === 'ENOTDIR') {
        return invalid('not_found', raw, 'does not exist; create the file first, then register it');
      }
      throw error;
    }
    if (last.isSymbolicLink()) {
      return invalid(
        'symlink',
        raw,
        `goes through the symbolic link ${JSON.stringify(path.relative(projectDir, current))}; register the real file`,
      );
    }
  }
  if (last === undefined || !last.isFile()) {
    return invalid(
      'not_a_regular_file',
      raw,
      'is not a regular file; register files, not folders or devices',
    );
  }
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in after the lstat must not hang the open.
    handle = await open(current, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === 'ELOOP') return invalid('symlink', raw, 'became a symbolic link; register the real file');
    if (errno === 'ENOENT' || errno === 'ENOTDIR') {
      return invalid('not_found', raw, 'does not exist; create the file first, then register it');
    }
    throw error;
  }
  const opened = await handle.stat();
  // A folder on the way swapped for a link between the walk and the open leads to another inode: refuse it.
  if (!opened.isFile() || opened.ino !== last.ino || opened.dev !== last.dev) {
    await handle.close();
    return invalid('symlink', raw, 'changed while it was being registered; register it again');
  }
  return { ok: true, path: relative, handle };
}

/** The POSIX project-relative form of `raw`, '' for the root itself, or undefined when it lies outside. */
function projectRelative(root: ProjectRoot, raw: string): string | undefined {
  const bases = path.isAbsolute(raw) ? [root.given, root.real] : [root.given];
  for (const base of bases) {
    const relative = path.relative(base, path.resolve(base, raw));
    if (relative === '') return '';
    if (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)) {
      return relative.split(path.sep).join('/');
    }
  }
  return undefined;
}

function invalid(code: RegistrationProblemCode, raw: string, reason: string): ArtefactPathVerdict {
  const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  return { ok: false, code, message: `${JSON.stringify(shown)} ${reason}` };
}
