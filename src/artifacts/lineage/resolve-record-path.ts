import path from 'node:path';
import { RECORD_TOP_FOLDERS, WORKSPACE_DIR } from '../../project/index.js';
import { LineageError } from './lineage-error.js';

const PATH_SHAPES =
  'paths look like workspace/src/a.ts (or src/a.ts, read inside workspace/), docs/plan.md, or an absolute path inside the project';

/**
 * Normalises a path as a user types it to the project-relative path records use: `./` and empty segments are
 * dropped, `\` becomes `/`, an absolute path inside the project becomes relative, and a relative path that does
 * not start with a top folder (workspace/, docs/, audits/, .agent/) is read inside `workspace/`.
 */
export function resolveRecordPath(projectDir: string, input: string): string {
  // Ingest refuses '\' in every recorded path, so reading it as a separator can never hide a recorded path.
  const slashed = input.replaceAll('\\', '/');
  if (path.isAbsolute(slashed)) {
    const relative = path.relative(path.resolve(projectDir), path.resolve(slashed)).replaceAll('\\', '/');
    if (relative === '')
      throw unknownPath(`path ${JSON.stringify(input)} is the project itself; ${PATH_SHAPES}`);
    if (relative === '..' || relative.startsWith('../') || path.isAbsolute(relative)) {
      throw unknownPath(`path ${JSON.stringify(input)} is outside the project ${projectDir}; ${PATH_SHAPES}`);
    }
    return relative;
  }
  // A drive letter on a system without drives ('C:/x' on POSIX) is another machine's absolute path.
  if (/^[A-Za-z]:\//.test(slashed)) {
    throw unknownPath(`path ${JSON.stringify(input)} is outside the project ${projectDir}; ${PATH_SHAPES}`);
  }
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw unknownPath(`path ${JSON.stringify(input)} contains a '..' segment; ${PATH_SHAPES}`);
  }
  const [top] = segments;
  if (top === undefined) throw unknownPath(`path ${JSON.stringify(input)} names no file; ${PATH_SHAPES}`);
  return RECORD_TOP_FOLDERS.includes(top) ? segments.join('/') : [WORKSPACE_DIR, ...segments].join('/');
}

function unknownPath(message: string): LineageError {
  return new LineageError({ code: 'unknown_path', message });
}
