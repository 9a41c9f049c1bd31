import { WORKSPACE_DIR } from '../project/index.js';

/** Why an entry carries a warning: its block follows the rules, but likely not where its author meant. */
export type WarningCode = 'workspace_prefix' | 'decided_while_streaming';

/** A warning on one manifest entry: a code from {@link WARNING_CODES} and a message saying what to write instead. */
export interface BlockWarning {
  readonly code: WarningCode;
  readonly message: string;
}

/** Every warning code, in documentation order (docs/reason-codes.md, "Warnings"; a test proves it lists them). */
export const WARNING_CODES: readonly WarningCode[] = ['workspace_prefix', 'decided_while_streaming'];

const doubledPrefix = `${WORKSPACE_DIR}/`;

/**
 * The warnings of a block whose `file=` path normalized to `normalizedPath`: a path that starts with
 * `workspace/` lands in `workspace/workspace/`, since paths are relative to workspace/. It is still written
 * there (D97: the strict rule stays, the mistake is named).
 */
export function warningsOfPath(normalizedPath: string): readonly BlockWarning[] {
  if (!normalizedPath.startsWith(doubledPrefix)) return [];
  const meant = normalizedPath.slice(doubledPrefix.length);
  return [
    {
      code: 'workspace_prefix',
      message: `file= path starts with ${doubledPrefix}, so the block goes to ${doubledPrefix}${normalizedPath}; paths are relative to ${doubledPrefix}: write file=${meant}`,
    },
  ];
}

/** A warning as the manifest and the `ingest.block` event carry it: `code: message`, as a reason is. */
export function warningText(warning: BlockWarning): string {
  return `${warning.code}: ${warning.message}`;
}
