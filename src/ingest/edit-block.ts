import { applyPatch, parsePatch } from 'diff';
import type { StructuredPatch, StructuredPatchHunk } from 'diff';

/** What applying an edit block to a file's current content gave: the new content, or why not (nothing to write). */
export type EditOutcome =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

const EDIT_LANGS = new Set(['diff', 'patch']);

/**
 * Whether a block is an edit block: lang `diff` or `patch`, and a `file=` that does not itself name a patch file
 * (`fix.patch`, `x.diff` are files to save as they are).
 */
export function isEditBlock(lang: string, declaredFile: string): boolean {
  if (!EDIT_LANGS.has(lang.toLowerCase())) return false;
  const name = declaredFile.toLowerCase();
  return declaredFile !== '' && !name.endsWith('.diff') && !name.endsWith('.patch');
}

/**
 * Applies one edit block's unified diff to `current` (null: the file does not exist) exactly: every hunk's
 * context and removed lines must match, with no fuzz; `path` names the file in messages. The diff's own
 * `---`/`+++` file names are not used: `file=` names the file.
 */
export function applyEditBlock(patchText: string, current: string | null, path: string): EditOutcome {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(patchText);
  } catch (error) {
    return refuse(
      `the block is not a unified diff (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const withHunks = patches.filter((patch) => patch.hunks.length > 0);
  const [patch] = withHunks;
  if (patch === undefined) return refuse('the block holds no hunk (@@ -a,b +c,d @@); nothing to apply');
  if (withHunks.length > 1) {
    return refuse(
      `the block patches ${withHunks.length} files; one edit block patches the one file its file= names`,
    );
  }
  if (patch.newFileName === '/dev/null') {
    return refuse(`the patch deletes ${path}; an edit block cannot delete a file`);
  }
  const creates = patch.oldFileName === '/dev/null';
  if (creates && current !== null) {
    return refuse(`the patch creates ${path} from /dev/null, but ${path} already exists in workspace/`);
  }
  if (!creates && current === null) {
    return refuse(
      `${path} does not exist in workspace/; a patch that creates a file starts with '--- /dev/null'`,
    );
  }
  const source = current ?? '';
  // Hunk by hunk, so the message names the first that fails; each try applies every hunk up to it.
  for (let count = 1; count <= patch.hunks.length; count++) {
    const applied = applyPatch(source, { ...patch, hunks: patch.hunks.slice(0, count) }, { fuzzFactor: 0 });
    if (applied === false) {
      const hunk = patch.hunks[count - 1] as StructuredPatchHunk;
      return refuse(
        `hunk ${count} (${hunkHeader(hunk)}) does not match ${path} at line ${hunk.oldStart}; nothing was written. Make the patch against the file's current content`,
      );
    }
    if (count === patch.hunks.length) return { ok: true, text: applied };
  }
  return refuse('the block holds no hunk; nothing to apply');
}

function hunkHeader(hunk: StructuredPatchHunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

function refuse(message: string): EditOutcome {
  return { ok: false, message };
}
