import { readArtifactAttribute } from '../fence/index.js';
import type { FenceBlock } from '../fence/index.js';
import { checkDeclaredPath, pathCollisionKey } from '../workspace/index.js';
import type { IngestLimits } from '../config/index.js';
import { isEditBlock } from './edit-block.js';
import type { ReasonCode } from './reason-code.js';

/** A candidate block after every rule that needs no filesystem: either decided, or cleared for writing. */
export type BlockPlan =
  | {
      readonly kind: 'decided';
      readonly block: FenceBlock;
      readonly bytes: Uint8Array;
      /** Normalized path when the path itself was acceptable, else null. */
      readonly path: string | null;
      readonly code: ReasonCode;
      readonly message: string;
    }
  | {
      readonly kind: 'write';
      readonly block: FenceBlock;
      readonly bytes: Uint8Array;
      readonly path: string;
      /** Set on an edit block: `bytes` are a unified diff to apply to the file's current content (docs/grammar.md). */
      readonly edit?: true;
      /**
       * The length of the block's bytes, set when `bytes` only stand for them (a streaming ingest keeps them in the
       * object store until its end, `KeptBytes`).
       */
      readonly size?: number;
    };

const encoder = new TextEncoder();

/**
 * Judges every candidate it is given in document order: format verdict, block size, path rules, last block
 * wins for a repeated path, case collisions, and the document's total byte budget. `max_blocks` is applied
 * before, by `limitCandidates`, which counts the candidates past it instead of planning them.
 */
export function planBlocks(blocks: readonly FenceBlock[], limits: IngestLimits): BlockPlan[] {
  return settlePlans(
    blocks.map((block) => planBlock(block, limits)),
    limits,
  );
}

/**
 * The rules that look at the whole document, over each block's own plan ({@link planBlock}) in document order:
 * last block wins for a repeated path, case collisions, and the document's total byte budget. Only the kind, path
 * and byte length of a plan count here, so a plan whose outcome is already known may carry no content.
 */
export function settlePlans(ownPlans: readonly BlockPlan[], limits: IngestLimits): BlockPlan[] {
  const plans = [...ownPlans];

  // Spec 2 (decided): a later block declaring the same file wins; only blocks that would be written compete,
  // so a truncated repeat never displaces a complete block. An edit block displaces nothing: it applies, in
  // document order, to what the blocks before it left (spec integrations.md, "Edit blocks").
  const lastWriterOf = new Map<string, number>();
  plans.forEach((plan, index) => {
    if (plan.kind === 'write' && plan.edit !== true) lastWriterOf.set(plan.path, index);
  });
  plans.forEach((plan, index) => {
    const last = plan.kind === 'write' ? lastWriterOf.get(plan.path) : undefined;
    if (plan.kind === 'write' && last !== undefined && last > index) {
      plans[index] = decidedPlan(
        plan,
        plan.path,
        'superseded',
        `block ${lastWriterOf.get(plan.path) ?? -1} declares the same file later; the last one wins`,
      );
    }
  });

  // Two distinct paths that one case-insensitive or normalizing filesystem would merge: which one the author
  // meant is unknowable, so none of them is written.
  const byKey = new Map<string, number[]>();
  plans.forEach((plan, index) => {
    if (plan.kind !== 'write') return;
    const key = pathCollisionKey(plan.path);
    byKey.set(key, [...(byKey.get(key) ?? []), index]);
  });
  for (const indexes of byKey.values()) {
    const paths = indexes.map((index) => (plans[index] as { path: string }).path);
    // Blocks of one same path (a file and the edit blocks after it) are no collision.
    if (new Set(paths).size < 2) continue;
    for (const index of indexes) {
      const plan = plans[index];
      if (plan?.kind !== 'write') continue;
      const others = paths.filter((path) => path !== plan.path).join(', ');
      plans[index] = decidedPlan(
        plan,
        plan.path,
        'case_collision',
        `'${plan.path}' differs from ${others} only by case or Unicode normalization; rename one`,
      );
    }
  }

  let total = 0;
  plans.forEach((plan, index) => {
    if (plan.kind !== 'write') return;
    total += plan.size ?? plan.bytes.byteLength;
    if (total > limits.maxTotalBytes) {
      plans[index] = decidedPlan(
        plan,
        plan.path,
        'too_large',
        `the document's files exceed max_total_bytes (${limits.maxTotalBytes} bytes)`,
      );
    }
  });
  return plans;
}

/** One block judged alone: format verdict, block size and path rules. */
export function planBlock(block: FenceBlock, limits: IngestLimits): BlockPlan {
  const bytes = encoder.encode(block.content);
  const verdict = block.declaredFile === '' ? null : checkDeclaredPath(block.declaredFile);
  const path = verdict?.ok === true ? verdict.path : null;
  const decided = (code: ReasonCode, message: string): BlockPlan =>
    decidedPlan({ block, bytes }, path, code, message);

  // A contract artifact goes through the canonical submission (contracts/), never into workspace/.
  const contract = readArtifactAttribute(block.info);
  if (contract !== undefined) {
    return decided(
      'contract_block',
      `artifact=${contract} block is a contract artifact: it is submitted to .agent/artifacts/, never written to workspace/`,
    );
  }
  if (!block.verdict.valid) return decided(block.verdict.code, block.verdict.message);
  if (bytes.byteLength > limits.maxBlockBytes) {
    return decided(
      'too_large',
      `block is ${bytes.byteLength} bytes; max_block_bytes is ${limits.maxBlockBytes}`,
    );
  }
  if (verdict === null) return decided('missing_file', 'no file= path');
  if (!verdict.ok) return decidedPlan({ block, bytes }, null, verdict.code, verdict.message);
  return isEditBlock(block.lang, block.declaredFile)
    ? { kind: 'write', block, bytes, path: verdict.path, edit: true }
    : { kind: 'write', block, bytes, path: verdict.path };
}

/** `plan` (a block and its bytes) decided at `path` with `code`: not to be written, an outcome of its own. */
export function decidedPlan(
  plan: { readonly block: FenceBlock; readonly bytes: Uint8Array },
  path: string | null,
  code: ReasonCode,
  message: string,
): BlockPlan & { kind: 'decided' } {
  return { kind: 'decided', block: plan.block, bytes: plan.bytes, path, code, message };
}
