/**
 * Child process of the held-memory tests (test/ingest/held-memory.test.ts, test/workspace/spooled-file.test.ts) (run with --expose-gc): feeds a document as fast as it can, never letting
 * the event loop run between chunks except where the callee asks it to wait, and prints, as JSON, how much more
 * memory (heap and array buffers, after a full collection) is held just before the end than before the start.
 * `node --expose-gc --import tsx held-memory-child.ts <spool|stream> <folder>`
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createIngestStream } from '../../src/index.js';
import { SpooledFile } from '../../src/workspace/index.js';

const [mode, folder = ''] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const live = (): number => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/** 400 file blocks of about 30 KB: 12 MB of files in a 12 MB document. */
function filesDocument(): string {
  const parts: string[] = [];
  for (let n = 0; n < 400; n++) {
    let body = `// part ${String(n)}\n`;
    for (let line = 0; body.length < 30_000; line++)
      body += `export const value${String(line)} = ${String(n * line)}; // ${'z'.repeat(30)}\n`;
    parts.push(`\`\`\`ts file=src/part${String(n)}.ts\n${body}\`\`\`\n`);
  }
  return parts.join('\n');
}

const text = mode === 'spool' ? 'x'.repeat(999).concat('\n').repeat(16_000) : filesDocument();
const chunks: string[] = [];
for (let at = 0; at < text.length; at += 1000) chunks.push(text.slice(at, at + 1000));
const before = live();
let held: number;
if (mode === 'spool') {
  const file = new SpooledFile(path.join(folder, 'spooled.md'), 'none');
  for (const chunk of chunks) await file.write(chunk);
  held = live() - before;
  await file.commit();
} else {
  await mkdir(path.join(folder, 'docs'), { recursive: true });
  const stream = createIngestStream({
    projectDir: folder,
    docPath: 'docs/answer.md',
    runId: 'held',
    nodeId: 'answer',
    durability: 'none',
  });
  const reading = stream.readable.pipeTo(new WritableStream());
  const writer = stream.writable.getWriter();
  for (const chunk of chunks) await writer.write(chunk);
  held = live() - before;
  await writer.close();
  await reading;
}
console.log(JSON.stringify({ held, textBytes: Buffer.byteLength(text) }));
