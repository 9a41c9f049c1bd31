import { redactSecrets } from '../../project/index.js';
import { checkDeclaredPath, type PathRuleCode } from '../../workspace/index.js';
import { parseTemplate, renderTemplate } from './template.js';

/** The folders a node may write its document into (spec runtime.md). */
export const OUTPUT_DIRS: readonly string[] = Object.freeze(['docs', 'audits']);

/** Why an output path was refused: an ingest path rule, a path outside docs/ and audits/, or a node's output in it. */
export type OutputPathCode = PathRuleCode | 'outside_output_dirs' | 'node_output_in_path';

/** A project-relative, normalized document path, or why there is none. */
export type OutputPathResult =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly code: OutputPathCode; readonly message: string };

/**
 * Checks a rendered `output_path` by the ingest path rules and normalizes it; the result must name a file
 * under `docs/` or `audits/` (the engine calls this after filling in the variables; `ingest -` for its
 * `--doc-path`, naming it by `label` in the messages).
 */
export function resolveOutputPath(rendered: string, label = 'output_path'): OutputPathResult {
  return judge(rendered, rendered, label);
}

// Stands in for each variable at load time: a plain name that breaks no rule, so only written parts can fail.
const PLACEHOLDER = 'v';

/**
 * Checks the parts of an `output_path` template that are written out, before any run: variables count as a
 * plain name, and a node's output is refused (a whole document cannot be a path).
 */
export function checkOutputPathTemplate(template: string): OutputPathResult {
  const parsed = parseTemplate(template);
  const nodeOutput = parsed.variables.find((variable) => variable.kind === 'node_output');
  if (nodeOutput !== undefined) {
    return {
      ok: false,
      code: 'node_output_in_path',
      message: `output_path ${quote(template)} uses ${nodeOutput.raw}, a whole document; use inputs and {run_id} only`,
    };
  }
  return judge(
    renderTemplate(parsed, () => PLACEHOLDER),
    template,
    'output_path',
  );
}

function judge(candidate: string, shown: string, label: string): OutputPathResult {
  const verdict = checkDeclaredPath(candidate);
  if (!verdict.ok) {
    return { ok: false, code: verdict.code, message: `${label} ${quote(shown)} ${explain(verdict.code)}` };
  }
  const [folder, ...rest] = verdict.path.split('/');
  if (folder === undefined || !OUTPUT_DIRS.includes(folder)) {
    return {
      ok: false,
      code: 'outside_output_dirs',
      message: `${label} ${quote(shown)} is not under docs/ or audits/; documents are written only there, so start it with docs/ (or audits/)`,
    };
  }
  if (rest.length === 0) {
    return {
      ok: false,
      code: 'outside_output_dirs',
      message: `${label} ${quote(shown)} names the ${folder}/ folder itself; name a file in it, such as ${folder}/report.md`,
    };
  }
  return { ok: true, path: verdict.path };
}

function explain(code: PathRuleCode): string {
  switch (code) {
    case 'empty_path':
      return 'names no file (it is empty or ends in "/" or "."); end it with a file name, such as docs/report.md';
    case 'absolute_path':
    case 'drive_letter':
    case 'unc_path':
      return 'is absolute; write it relative to the project, starting with docs/ or audits/';
    case 'backslash':
      return 'contains "\\"; separate folders with "/"';
    case 'colon':
      return 'contains ":" (a drive, an NTFS stream or a URL scheme); remove it';
    case 'traversal':
      return 'contains a ".." segment; write the path under docs/ or audits/ without ".."';
    case 'control_char':
      return 'contains a control character (such as a line break or a tab); remove it';
    case 'reserved_name':
      return 'has a name Windows reserves (a device name such as CON or NUL, a name ending in a dot or space, or one of <>"|?*); rename it';
    case 'invalid_unicode':
      return 'contains an invisible, look-alike or invalid Unicode character; use plain characters';
    case 'too_long':
      return 'is too long (a name over 255 bytes or a path over 4096 bytes of UTF-8); shorten it';
    case 'git_dir':
      return 'goes into a .git folder; documents are never written there';
    case 'secret_in_path':
      return 'holds what looks like a credential; a secret must never become a file name, so take it out of the path (and out of the inputs it is rendered from)';
  }
}

function quote(text: string): string {
  // A rendered path may hold a long input value; the start is enough to recognize it. A secret in it is shown
  // redacted, never as it is (docs/security.md, "Secrets").
  const redacted = redactSecrets(text);
  return JSON.stringify(redacted.length > 120 ? `${redacted.slice(0, 120)}…` : redacted);
}
