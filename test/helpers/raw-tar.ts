import { readFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Header, Parser, Pax } from 'tar';
import type { ReadEntry } from 'tar';

/** One tar entry exactly as a hostile archive may spell it: any path, any type, any link target. */
export interface RawEntry {
  readonly path: string;
  /** node-tar's entry type name; `File` when absent. */
  readonly type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO' | 'BlockDevice';
  readonly body?: string | Uint8Array;
  readonly linkpath?: string;
  /** The size the header claims, when it is to lie about the body (which is written as given). */
  readonly size?: number;
}

/** Encodes entries into an uncompressed tar with node-tar's Header (a pax header when a path needs one). */
export function rawTar(entries: readonly RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : Buffer.from(entry.body ?? []);
    const header = new Header({
      path: entry.path,
      type: entry.type ?? 'File',
      size: entry.size ?? body.length,
      mode: entry.type === 'Directory' ? 0o755 : 0o644,
      mtime: new Date(0),
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
    });
    if (header.encode()) blocks.push(new Pax({ path: entry.path, size: entry.size ?? body.length }).encode());
    blocks.push(header.block ?? Buffer.alloc(512));
    blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  // Two zero blocks end a tar archive.
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A gzip tar of the entries, as a bundle file holds it. */
export function gzipTar(entries: readonly RawEntry[]): Buffer {
  return gzipSync(rawTar(entries));
}

/** Every entry of a gzip tar, in order, with its body (for tampering with a real bundle). */
export async function readTarEntries(file: string): Promise<RawEntry[]> {
  const entries: RawEntry[] = [];
  const parser = new Parser({ strict: true });
  parser.on('entry', (entry: ReadEntry) => {
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => {
      entries.push({
        path: entry.path,
        type: entry.type as NonNullable<RawEntry['type']>,
        body: Buffer.concat(chunks),
      });
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.once('end', resolve);
    parser.once('error', reject);
  });
  parser.end(gunzipSync(await readFile(file)));
  await done;
  return entries;
}
