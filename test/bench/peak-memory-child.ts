/**
 * Child process of the streaming bench (streaming.ts): one streamed (`stream`) or post-write (`post`) ingest of the
 * bench's 1 MB answer in a fresh project under `root`, in a process that has loaded the library and made the text
 * and its chunks and nothing else, measured from after a full collection: what the ingest adds to the process's
 * peak resident set, the threads it starts included (the parse worker, and the stream's object writer); prints
 * `{ "peakBytes": N }`. Each call in a process of its own: in a process that already ran many, the heap reuses
 * pages it holds, and a call's peak says more about what ran before it than about the call.
 * `node --import tsx peak-memory-child.ts <stream|post> <root>`
 */
import {
  CHUNK,
  chunksOf,
  DOCUMENT_BYTES,
  freshProject,
  postWrite,
  streamed,
  withPeakMemory,
} from './streaming-calls.js';
import { typicalDocument } from './typical-document.js';

const [mode, root = ''] = process.argv.slice(2);
if (mode !== 'stream' && mode !== 'post') throw new Error('usage: peak-memory-child.ts <stream|post> <root>');

const ingest = async (dir: string, text: string, fed: ReturnType<typeof chunksOf>): Promise<unknown> =>
  mode === 'stream' ? streamed(dir, fed) : postWrite(dir, text);

// The text and its chunks are made before the clock, as in the timed rounds.
const text = typicalDocument(DOCUMENT_BYTES);
const fed = chunksOf(text, CHUNK);
const dir = await freshProject(root, 'measured');
const { peakBytes } = await withPeakMemory(() => ingest(dir, text, fed));
process.stdout.write(`${JSON.stringify({ peakBytes })}\n`);
