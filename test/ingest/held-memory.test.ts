import { describe, expect, it } from 'vitest';
import { STREAM_HELD_BYTES } from '../../src/ingest/kept-bytes.js';
import { heldBy } from '../helpers/held-memory.js';
import { tempProject } from '../helpers/temp-project.js';

const MB = 1024 * 1024;

describe('memory a stream holds (a real child process, measured after a full collection)', () => {
  it('a streaming ingest of 12 MB of files holds about STREAM_HELD_BYTES of them, not the document', async () => {
    const { held, textBytes } = await heldBy('stream', await tempProject());
    expect(textBytes).toBeGreaterThan(11_000_000);
    expect(held).toBeLessThan(STREAM_HELD_BYTES + 4 * MB);
  }, 60_000);
});
