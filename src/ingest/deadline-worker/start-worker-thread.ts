import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread on `entry` with heap limits of its own (`resourceLimits`): a `.ts` entry (tests run the sources) through
 * tsx's loader, a `.js` one (dist/) directly with the process's Node flags that a worker accepts.
 */
export function startWorkerThread(entry: URL, resourceLimits: ResourceLimits): Worker {
  // Without a heap limit of its own, a request that exhausts the heap aborts the whole process; with one,
  // only the worker ends (ERR_WORKER_OUT_OF_MEMORY) and only its request is lost.
  return entry.pathname.endsWith('.ts')
    ? new Worker(tsxBootstrap(entry), { eval: true, resourceLimits })
    : startWithFlags(entry, workerExecArgv(process.execArgv), resourceLimits);
}

/**
 * Starts the worker with the process's flags, less those a worker refuses (ERR_WORKER_INVALID_EXEC_ARGV): V8
 * flags such as `--max-old-space-size` or `--expose-gc`, which already hold for the whole process. Without this a
 * process run under a heap cap never had a worker, and parsed every document in-process.
 */
function startWithFlags(entry: URL, execArgv: readonly string[], resourceLimits: ResourceLimits): Worker {
  try {
    return new Worker(entry, { execArgv: [...execArgv], resourceLimits });
  } catch (error) {
    const refused = refusedFlags(error);
    if (refused.length === 0) throw error;
    const kept = execArgv.filter(
      (arg) => !refused.some((flag) => arg === flag || arg.startsWith(`${flag}=`)),
    );
    return new Worker(entry, { execArgv: kept, resourceLimits });
  }
}

/** The flags named by Node's "Initiated Worker with invalid execArgv flags: --a, --b=1" error; none for others. */
function refusedFlags(error: unknown): string[] {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return [];
  const listed = /flags: (.*)$/.exec((error as Error).message)?.[1] ?? '';
  return listed
    .split(', ')
    .map((flag) => flag.split('=')[0] ?? '')
    .filter((flag) => flag.startsWith('-'));
}

/**
 * The process's Node flags that a worker accepts: `--input-type` (for `node -e`) makes a worker refuse to
 * start, so it is left out; the rest (loaders, conditions) carry over as they would by default.
 */
function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index] ?? '';
    if (arg === '--input-type') index++;
    else if (!arg.startsWith('--input-type=')) kept.push(arg);
  }
  return kept;
}

/** The part of tsx's package.json that names its ESM API. */
interface TsxManifest {
  readonly exports: Readonly<Record<string, { readonly import?: { readonly default?: string } } | undefined>>;
}

/**
 * A worker script that registers tsx's loader, then imports the TypeScript entry: only tests, which run the
 * sources, need it (Node 20 does not apply a worker's `--import tsx` to its entry); dist/ never does.
 */
function tsxBootstrap(entry: URL): string {
  let api = 'tsx/esm/api';
  try {
    // The ESM build that tsx's own exports name for `import` (require.resolve would give its CommonJS one).
    const require = createRequire(import.meta.url);
    const manifestPath = require.resolve('tsx/package.json');
    const manifest = require(manifestPath) as TsxManifest;
    const esm = manifest.exports['./esm/api']?.import?.default;
    if (esm !== undefined) api = new URL(esm, pathToFileURL(manifestPath)).href;
  } catch {
    // Unresolvable: the worker then fails to start and its user falls back, saying so.
  }
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}
