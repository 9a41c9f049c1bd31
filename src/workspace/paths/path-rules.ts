import { Buffer } from 'node:buffer';
import { findSecret } from '../../project/index.js';
import { findInvalidUnicode } from './find-invalid-unicode.js';
import { foldCase } from './fold-case.js';
import type { PathRuleCode, PathVerdict } from '../write-outcome.js';

/** Longest file or directory name, in UTF-8 bytes (Linux NAME_MAX). */
export const MAX_COMPONENT_BYTES = 255;

/** Longest normalized path, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

// Two leading separators of either kind: '\\server', '//server', '\\?\', '//?/', '\\.\' and mixed forms.
const uncPrefix = /^[\\/]{2}/;
const drivePrefix = /^[A-Za-z]:[\\/]/;
const windowsForbidden = /[<>"|?*]/;
// Windows device names, matched on the part before the first dot with trailing spaces removed.
const deviceNames: ReadonlySet<string> = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  'conin$',
  'conout$',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((digit) => [`com${digit}`, `lpt${digit}`]),
]);

/**
 * Judges a `file=` path by the pure rules of spec ingest.md section 2, returning its normalized form or one code.
 *
 * Rules are checked in this order and the first broken one wins: empty_path, secret_in_path, control_char,
 * invalid_unicode, unc_path, drive_letter, absolute_path, backslash, colon, traversal, empty_path (names no
 * file), too_long, git_dir, reserved_name.
 */
export function checkDeclaredPath(declared: string): PathVerdict {
  if (declared === '') return refuse('empty_path', 'file= path is empty; name a file inside workspace/');

  // First, so that no later message quotes a component that holds a secret (docs/security.md, "Secrets").
  const secret = findSecretInPath(declared);
  if (secret !== undefined) {
    return refuse(
      'secret_in_path',
      `file= path holds what looks like a credential (${secret}); a secret must never become a file name, so rename the file`,
    );
  }

  const control = findControlCharacter(declared);
  if (control !== undefined) {
    return refuse('control_char', `file= path contains the control character U+${hex(control)}; remove it`);
  }
  const invalid = findInvalidUnicode(declared);
  if (invalid !== undefined) {
    return refuse(
      'invalid_unicode',
      `file= path contains U+${hex(invalid.codePoint)}, which ${invalid.why}; use plain characters instead`,
    );
  }
  const shapeRefusal = checkShape(declared);
  if (shapeRefusal !== undefined) return shapeRefusal;

  const segments = declared.split('/');
  const components = segments.filter((segment) => segment !== '' && segment !== '.');
  if (components.includes('..')) {
    return refuse('traversal', "file= path contains a '..' segment; paths must stay inside workspace/");
  }
  // A trailing '/' or '.' names the directory itself; never turn it into a file name.
  const last = segments.at(-1);
  if (components.length === 0 || last === '' || last === '.') {
    return refuse('empty_path', 'file= path names a directory, not a file; end it with a file name');
  }
  return checkComponents(components);
}

function checkShape(declared: string): PathVerdict | undefined {
  if (uncPrefix.test(declared)) {
    return refuse(
      'unc_path',
      "file= path starts with '//' or '\\\\' (a UNC or device path); use a path relative to workspace/",
    );
  }
  if (drivePrefix.test(declared)) {
    return refuse(
      'drive_letter',
      "file= path starts with a drive letter such as 'C:\\'; use a path relative to workspace/",
    );
  }
  if (declared.startsWith('/') || declared.startsWith('\\')) {
    return refuse('absolute_path', 'file= path is absolute; use a path relative to workspace/');
  }
  if (declared.includes('\\')) {
    return refuse('backslash', "file= path contains '\\'; separate directories with '/'");
  }
  if (declared.includes(':')) {
    return refuse('colon', "file= path contains ':' (a drive, an NTFS stream or a URL scheme); remove it");
  }
  return undefined;
}

function checkComponents(components: readonly string[]): PathVerdict {
  const normalized = components.join('/');
  for (const component of components) {
    const bytes = Buffer.byteLength(component, 'utf8');
    if (bytes > MAX_COMPONENT_BYTES) {
      return refuse(
        'too_long',
        `file= path component ${quote(component)} is ${bytes} bytes; names are limited to ${MAX_COMPONENT_BYTES} bytes of UTF-8`,
      );
    }
  }
  const pathBytes = Buffer.byteLength(normalized, 'utf8');
  if (pathBytes > MAX_PATH_BYTES) {
    return refuse(
      'too_long',
      `file= path is ${pathBytes} bytes; paths are limited to ${MAX_PATH_BYTES} bytes of UTF-8`,
    );
  }
  const gitComponent = components.find(isGitDirName);
  if (gitComponent !== undefined) {
    return refuse(
      'git_dir',
      `file= path component ${quote(gitComponent)} names the .git directory; files are never written into it`,
    );
  }
  for (const component of components) {
    const why = whyReserved(component);
    if (why !== undefined)
      return refuse('reserved_name', `file= path component ${quote(component)} ${why}; rename it`);
  }
  return { ok: true, path: normalized };
}

function isGitDirName(component: string): boolean {
  // Windows drops trailing dots and spaces and NTFS names '.git' 'GIT~1' too (git's own protectNTFS rules).
  const folded = foldCase(component.normalize('NFKC')).replace(/[. ]+$/u, '');
  return folded === '.git' || folded === 'git~1';
}

function whyReserved(component: string): string | undefined {
  if (component.endsWith('.') || component.endsWith(' ')) {
    return 'ends in a dot or space, which Windows silently strips';
  }
  const forbidden = windowsForbidden.exec(component);
  if (forbidden !== null) return `contains ${quote(forbidden[0])}, which Windows forbids in names`;
  // NFKC maps the superscript digits of 'COM¹' and fullwidth letters onto the plain device name.
  const stem = foldCase(component.normalize('NFKC')).split('.')[0] ?? '';
  if (deviceNames.has(stem.replace(/ +$/u, ''))) return 'is a Windows device name (with any extension)';
  return undefined;
}

/**
 * The family of a credential in any component of a path (a `file=` value, a document path), or undefined.
 * Components are judged one by one: a whole path such as `src/Api/Handlers/...` could otherwise pass for a
 * 40-character AWS secret across its '/'.
 */
export function findSecretInPath(declared: string): string | undefined {
  for (const component of declared.split(/[\\/]/)) {
    if (component === '') continue;
    const found = findSecret(component);
    if (found !== undefined) return found.family;
  }
  return undefined;
}

function refuse(code: PathRuleCode, message: string): PathVerdict {
  return { ok: false, code, message };
}

function quote(component: string): string {
  const shown = component.length > 40 ? `${component.slice(0, 40)}…` : component;
  return JSON.stringify(shown);
}

/** The first C0 control, DEL or C1 control (spec ingest.md section 2: control_char). */
function findControlCharacter(text: string): number | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return unit;
  }
  return undefined;
}

function hex(codePoint: number): string {
  return codePoint.toString(16).toUpperCase().padStart(4, '0');
}
