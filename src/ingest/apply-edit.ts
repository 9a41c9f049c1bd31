import type { ConfinedRoot } from '../workspace/index.js';
import { applyEditBlock } from './edit-block.js';
import type { BlockPlan } from './plan-blocks.js';
import type { ReasonCode } from './reason-code.js';

/** What an edit block applies to: the bytes this document already placed at a path, else the workspace's file. */
export interface EditContext {
  readonly workspace: ConfinedRoot | null;
  /** Bytes placed (or, on a dry run, that would be) by this document's earlier blocks, by path. */
  readonly placed: Map<string, Uint8Array>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** An edit block's plan with the patched content as its bytes, or why the patch is refused. */
export async function applyEdit(
  plan: BlockPlan & { kind: 'write' },
  edits: EditContext,
): Promise<
  | { readonly ok: true; readonly plan: BlockPlan & { kind: 'write' } }
  | { readonly ok: false; readonly code: ReasonCode; readonly message: string }
> {
  const current = await currentContent(plan.path, edits);
  if (current.kind === 'refused') return { ok: false, code: current.code, message: current.message };
  let text: string | null = null;
  if (current.kind === 'found') {
    try {
      text = utf8.decode(current.bytes);
    } catch {
      return {
        ok: false,
        code: 'patch_does_not_apply',
        message: `workspace/${plan.path} is not UTF-8 text; a patch applies to text files only`,
      };
    }
  }
  const applied = applyEditBlock(plan.block.content, text, plan.path);
  if (!applied.ok) return { ok: false, code: 'patch_does_not_apply', message: applied.message };
  return { ok: true, plan: { ...plan, bytes: encoder.encode(applied.text) } };
}

type CurrentContent =
  | { readonly kind: 'found'; readonly bytes: Uint8Array }
  | { readonly kind: 'missing' }
  | { readonly kind: 'refused'; readonly code: ReasonCode; readonly message: string };

async function currentContent(path: string, edits: EditContext): Promise<CurrentContent> {
  const placed = edits.placed.get(`workspace/${path}`);
  if (placed !== undefined) return { kind: 'found', bytes: placed };
  // A dry run without workspace/ holds no file yet.
  if (edits.workspace === null) return { kind: 'missing' };
  const opening = await edits.workspace.openFile(path);
  switch (opening.kind) {
    case 'missing':
      return opening;
    case 'opened':
      try {
        return { kind: 'found', bytes: new Uint8Array(await opening.handle.readFile()) };
      } finally {
        await opening.handle.close();
      }
    case 'refused': {
      // Read as the writer walks: no symlink followed, and a hard-linked file's bytes may be another file's.
      const message = `workspace/${opening.relativePath} cannot be patched: it is not a regular file of its own (${opening.code}); send the whole file instead`;
      return opening.code === 'hard_link'
        ? { kind: 'refused', code: 'patch_does_not_apply', message }
        : { kind: 'refused', code: opening.code, message };
    }
  }
}
