import { scanBundleArchive } from './scan-bundle-archive.js';
import type { BundleLimits } from './scan-types.js';
import type { BundleManifest } from './bundle-manifest.js';
import { parseRecordLines } from '../store/index.js';
import { traceContentSchema } from '../trace-content.js';
import type { TraceContent } from '../trace-content.js';

/** A bundle checked entry by entry without keeping its contents: paths, sizes and hashes, and the run's records. */
export interface BundleArchive {
  readonly manifest: BundleManifest;
  /** Run files by project-relative path, in archive order: their sha256 (hex) and size. */
  readonly runFiles: ReadonlyMap<string, { readonly sha256: string; readonly bytes: number }>;
  /** The bytes of the run's artifacts.jsonl, when the bundle has one (the records name the objects). */
  readonly records: Uint8Array | undefined;
  /** Run folders (project-relative, no trailing '/'), in archive order. */
  readonly runDirectories: readonly string[];
  /** Content hashes of the bundle's objects, each verified against the hash its path names. */
  readonly objects: ReadonlySet<string>;
  /** The content of each trace object the records name, by hash, read as it streamed by (undefined: not a trace). */
  readonly traces: ReadonlyMap<string, TraceContent | undefined>;
}

/**
 * Reads a gzip tar bundle once, streaming (see {@link scanBundleArchive}): every entry judged, sized from its
 * header and hashed; only the manifest and artifacts.jsonl are kept. Nothing is written.
 */
export async function readBundleArchive(bundleFile: string, limits: BundleLimits): Promise<BundleArchive> {
  const runFiles = new Map<string, { readonly sha256: string; readonly bytes: number }>();
  const objects = new Set<string>();
  let records: Uint8Array | undefined;
  // The records come before the objects (the scan refuses a run file after an object), so a trace object is
  // known when it arrives: it is parsed then and only its content kept, one entry in memory at a time.
  let traceHashes: ReadonlySet<string> = new Set<string>();
  const traces = new Map<string, TraceContent | undefined>();
  const scanned = await scanBundleArchive(bundleFile, limits, {
    keep: (verdict) =>
      verdict.kind === 'object'
        ? traceHashes.has(verdict.hash)
        : // judgeBundleEntry admits artifacts.jsonl only at the top of the run folder: this is the run's own.
          verdict.path.endsWith('/artifacts.jsonl'),
    // At the records' end, before the next entry is judged: `keep` must know the traces among the objects.
    inspect: (file) => {
      if (file.verdict.kind === 'runFile' && file.bytes !== undefined)
        traceHashes = traceHashesOf(file.bytes);
    },
    onFile: (file) => {
      if (file.verdict.kind === 'object') {
        objects.add(file.verdict.hash);
        if (file.bytes !== undefined) traces.set(file.verdict.hash, parseTrace(file.bytes));
        return;
      }
      runFiles.set(file.verdict.path, { sha256: file.sha256, bytes: file.size });
      if (file.bytes !== undefined) records = file.bytes;
    },
  });
  return {
    manifest: scanned.manifest,
    runFiles,
    records,
    runDirectories: scanned.runDirectories,
    objects,
    traces,
  };
}

/** The content hashes of the trace records among `bytes` (an artifacts.jsonl); bad lines are judged later. */
function traceHashesOf(bytes: Uint8Array): Set<string> {
  const { records } = parseRecordLines(new TextDecoder().decode(bytes), 'artifacts.jsonl');
  return new Set(records.filter((record) => record.type === 'trace').map((record) => record.contentHash));
}

/** A trace object's content, or undefined when its bytes are not a trace (readers report it unreadable). */
export function parseTrace(bytes: Uint8Array): TraceContent | undefined {
  try {
    const parsed = traceContentSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
