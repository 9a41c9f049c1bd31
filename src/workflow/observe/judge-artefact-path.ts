import path from 'node:path';
import { AGENT_DIR } from '../../project/index.js';
import { checkDeclaredPath } from '../../workspace/index.js';
import type {
  ConfinedReadOptions,
  ConfinedRoot,
  PathRuleCode,
  QuickHandle,
  ReadRefusal,
} from '../../workspace/index.js';

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
  | 'not_a_regular_file'
  /** The file has more than one name: its bytes may be those of a file outside the project. */
  | 'hard_link';

/** The verdict on one path: its project-relative form and an open handle on the file, or why it is invalid. */
export type ArtefactPathVerdict =
  | { readonly ok: true; readonly path: string; readonly handle: QuickHandle }
  | { readonly ok: false; readonly code: RegistrationProblemCode; readonly message: string };

/**
 * The project root as given and as resolved, so absolute paths through either spelling are recognised, and
 * opened as a confined root, through which every file is opened.
 */
export interface ProjectRoot {
  readonly given: string;
  readonly real: string;
  readonly files: ConfinedRoot;
}

/**
 * Judges one path given to register_artefacts: absolute or project-relative, by ingest's path rules on its
 * project-relative form, then opens it as the confined writer walks (every folder through its parent's
 * descriptor with O_NOFOLLOW): an `ok` verdict carries that very file, a regular file with one name, for the
 * caller to read and close, so the bytes recorded are never those of a path resolved again.
 */
export async function judgeArtefactPath(
  root: ProjectRoot,
  raw: string,
  options: ConfinedReadOptions = {},
): Promise<ArtefactPathVerdict> {
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
  return judgeOnDisk(root.files, raw, rule.path, options);
}

/** Opens the file through the confined root's walk (no symlink followed anywhere) and names what it refused. */
async function judgeOnDisk(
  files: ConfinedRoot,
  raw: string,
  relative: string,
  options: ConfinedReadOptions,
): Promise<ArtefactPathVerdict> {
  const opening = await files.openFile(relative, options);
  switch (opening.kind) {
    case 'opened':
      return { ok: true, path: relative, handle: opening.handle };
    case 'missing':
      return invalid('not_found', raw, 'does not exist; create the file first, then register it');
    case 'refused':
      return refused(raw, opening);
  }
}

function refused(raw: string, refusal: ReadRefusal): ArtefactPathVerdict {
  switch (refusal.code) {
    case 'symlink':
      return refusal.swapped === true
        ? invalid('symlink', raw, 'changed while it was being registered; register it again')
        : invalid(
            'symlink',
            raw,
            `goes through the symbolic link ${JSON.stringify(refusal.relativePath)}; register the real file`,
          );
    case 'not_a_directory':
      // A file where a folder of the path should be: the path names nothing.
      return invalid('not_found', raw, 'does not exist; create the file first, then register it');
    case 'is_a_directory':
    case 'not_a_regular_file':
      return invalid(
        'not_a_regular_file',
        raw,
        'is not a regular file; register files, not folders or devices',
      );
    case 'hard_link':
      return invalid(
        'hard_link',
        raw,
        'is a hard link: its bytes are shared with another name, maybe outside the project; make it a file of its own (copy it, then move the copy over it) and register it again',
      );
  }
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
