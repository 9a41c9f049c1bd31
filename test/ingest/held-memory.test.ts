import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { STREAM_HELD_BYTES } from '../../src/ingest/kept-bytes.js';
import { tempProject } from '../helpers/temp-project.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../helpers/held-memory-child.ts', import.meta.url));

/** What the child held just before the end, fed as fast as it takes text (see the fixture). */
async function heldBy(mode: 'stream'): Promise<{ held: number; textBytes: number }> {
  const folder = await tempProject();
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, mode, folder]);
  return JSON.parse(stdout) as { held: number; textBytes: number };
}

const MB = 1024 * 1024;

describe('memory a stream holds (a real child process, measured after a full collection)', () => {
  it('a streaming ingest of 12 MB of files holds about STREAM_HELD_BYTES of them, not the document', async () => {
    const { held, textBytes } = await heldBy('stream');
    expect(textBytes).toBeGreaterThan(11_000_000);
    expect(held).toBeLessThan(STREAM_HELD_BYTES + 4 * MB);
  }, 60_000);
});
