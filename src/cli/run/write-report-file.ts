import { join } from 'node:path';
import { REPORT_GENERATOR } from '../../report/index.js';
import {
  WorkspaceError,
  errnoOf,
  lstatOrMissing,
  readUserFileHead,
  writeFileAtomically,
} from '../../workspace/index.js';
import { UsageError } from '../usage-error.js';

/** Where `report` wrote its page and how big it is. */
export interface WrittenReport {
  readonly path: string;
  readonly bytes: number;
}

// The generator meta sits in <head>, well inside the first few KB of any page the report renders.
const HEAD_BYTES = 4096;
const GENERATOR_META = `<meta name="generator" content="${REPORT_GENERATOR}">`;

/**
 * Writes a report page to `target` atomically (temp file, then rename): a missing file is created, an earlier
 * report is replaced, and anything else is kept unless `force`, with a usage error naming the way out.
 */
export async function writeReportFile(
  target: string,
  page: string,
  options: { readonly force: boolean },
): Promise<WrittenReport> {
  const existing = await lstatOrMissing(target);
  if (existing?.isDirectory() === true) {
    throw new UsageError(
      `${target} is a folder; name the page's file with -o, such as ${join(target, 'run.report.html')}`,
      'report',
    );
  }
  const replace =
    existing !== undefined && (options.force || (existing.isFile() && (await isReport(target))));
  if (existing !== undefined && !replace) {
    throw new UsageError(
      `${target} exists and is not a report this command wrote; pass --force to replace it, or choose another -o`,
      'report',
    );
  }
  const bytes = Buffer.from(page, 'utf8');
  let written;
  try {
    written = await writeFileAtomically(
      target,
      async (handle) => {
        await handle.writeFile(bytes);
        return bytes.length;
      },
      { replace },
    );
  } catch (error) {
    if (error instanceof WorkspaceError && error.syscall === 'open') {
      throw new UsageError(
        `cannot create a file in the folder of ${target} (${error.code}); create the folder or choose another -o`,
        'report',
      );
    }
    throw error;
  }
  // Created by someone else between the check and the link: kept, as any file that is not a report is.
  if (written.status === 'exists') {
    throw new UsageError(`${target} appeared while the report was written; run the command again`, 'report');
  }
  return { path: target, bytes: written.bytes };
}

async function isReport(target: string): Promise<boolean> {
  const head = await readUserFileHead(target, HEAD_BYTES);
  if (head.ok) return head.bytes.toString('utf8').includes(GENERATOR_META);
  if (head.problem === 'not_regular') return false;
  const code = errnoOf(head.cause);
  if (code === 'EACCES' || code === 'ENOENT') return false;
  throw head.cause;
}
