import {
  AGENT_DIR,
  AUDITS_DIR,
  contractArtifactPath,
  DOCS_DIR,
  manifestPath,
  WORKSPACE_DIR,
} from '../project/index.js';
import { checkDeclaredPath } from '../workspace/index.js';
import type { ArtifactRecord } from './artifact-record.js';
import type { TraceContent } from './trace-content.js';
import { tracePathOf } from './trace-content.js';

/**
 * Which rule a recorded path is held to, by what wrote the record: the ingest's files (`workspace/` and a
 * `file=` path), a node's or step's document (under docs/ or audits/), a file registered by register_artefacts,
 * a submitted contract artifact, a trace's logical path, and a trace's manifest path.
 */
export type RecordPathRule =
  'workspace_file' | 'document' | 'registered_file' | 'contract_artifact' | 'trace_path' | 'manifest_path';

/** A recorded path that no writer of the product could have recorded: the rule, and what is wrong, in words. */
export interface RecordPathRefusal {
  readonly rule: RecordPathRule;
  /** The offending path, as recorded. */
  readonly path: string;
  /** Completes "record <id> ...": what the path is and what the rule wants. */
  readonly message: string;
}

const DOCUMENT_DIRS: readonly string[] = [DOCS_DIR, AUDITS_DIR];

/**
 * Holds a record's `path` to the rule of the writer that records its kind, the same rules those paths met when
 * they were written (checkDeclaredPath and the folders each writer uses), so a path from a hand-edited or imported
 * artifacts.jsonl (`workspace/../../etc/hostname`, `/etc/passwd`, `workspace/.git/hooks/pre-commit`) is never
 * turned into a filesystem path. Returns undefined when the path is one the product writes.
 */
export function judgeRecordPath(record: ArtifactRecord): RecordPathRefusal | undefined {
  const { path } = record;
  if (record.type === 'trace') {
    const expected = tracePathOf(record.runId, record.taskId);
    return path === expected
      ? undefined
      : refusal('trace_path', path, `is not ${JSON.stringify(expected)}, the path of its node's trace`);
  }
  if (record.type === 'message') return judgeDocumentPath(path);
  switch (record.metadata.source) {
    case 'submit': {
      const contract = record.metadata.contract;
      const expected = contract === undefined ? undefined : contractArtifactPath(record.runId, contract);
      return path === expected
        ? undefined
        : refusal(
            'contract_artifact',
            path,
            `is not the path of its run's ${contract ?? '(unnamed)'} contract artifact${expected === undefined ? '' : ` (${JSON.stringify(expected)})`}`,
          );
    }
    case 'register': {
      const why = whyNotPlain(path);
      if (why !== undefined) return refusal('registered_file', path, why);
      return path.split('/')[0]?.toLowerCase() === AGENT_DIR
        ? refusal('registered_file', path, `is inside ${AGENT_DIR}/, which register_artefacts never records`)
        : undefined;
    }
    case 'ingest':
    case 'runtime': {
      const prefix = `${WORKSPACE_DIR}/`;
      if (!path.startsWith(prefix)) {
        return refusal(
          'workspace_file',
          path,
          `is not below ${prefix}, where every ingested file is written`,
        );
      }
      const why = whyNotPlain(path.slice(prefix.length));
      return why === undefined ? undefined : refusal('workspace_file', path, why);
    }
  }
}

/** Holds a document path (a `message` record's, a trace's `document.path`) to the rule of output_path. */
export function judgeDocumentPath(path: string): RecordPathRefusal | undefined {
  const why = whyNotPlain(path);
  if (why !== undefined) return refusal('document', path, why);
  const [folder, ...rest] = path.split('/');
  return folder !== undefined && DOCUMENT_DIRS.includes(folder) && rest.length > 0
    ? undefined
    : refusal(
        'document',
        path,
        `is not a file under ${DOCS_DIR}/ or ${AUDITS_DIR}/, where documents are written`,
      );
}

/**
 * Holds the paths inside a trace's content to their rules: its document's path (as a document) and its ingest's
 * manifest path, which is empty or exactly the node's manifest, `.agent/runs/<run_id>/manifests/<node_id>.json`.
 */
export function judgeTracePaths(
  record: ArtifactRecord,
  content: TraceContent,
): RecordPathRefusal | undefined {
  const document = content.document === undefined ? undefined : judgeDocumentPath(content.document.path);
  if (document !== undefined) return document;
  const manifest = content.ingest?.manifest_path;
  if (manifest === undefined || manifest === '') return undefined;
  const expected = manifestPath(record.runId, record.taskId);
  return manifest === expected
    ? undefined
    : refusal(
        'manifest_path',
        manifest,
        `is not ${JSON.stringify(expected)}, the manifest of its node's ingest`,
      );
}

/** Why a path is not one checkDeclaredPath accepts exactly as it is (normalized), or undefined. */
function whyNotPlain(path: string): string | undefined {
  const verdict = checkDeclaredPath(path);
  // The rule's message speaks of a `file=` path; here the subject is a recorded one.
  if (!verdict.ok)
    return `breaks the path rule ${verdict.code} (${verdict.message.replace(/^file= path /, '')})`;
  return verdict.path === path ? undefined : `is not in normal form (${showPath(verdict.path)})`;
}

function refusal(rule: RecordPathRule, path: string, why: string): RecordPathRefusal {
  return { rule, path, message: `has the path ${showPath(path)}, which ${why}` };
}

/**
 * A recorded path quoted for a message: JSON string syntax, with every control, format (bidi, zero-width),
 * separator and unassigned code point escaped, so a hostile path cannot reorder or hide the text around it.
 */
export function showPath(path: string): string {
  return JSON.stringify(path).replace(
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Cs}]/gu,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
