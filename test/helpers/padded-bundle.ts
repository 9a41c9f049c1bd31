import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip, gunzipSync, gzipSync } from 'node:zlib';

const CHUNK = 1024 * 1024;
/** Padding past this goes into further gzip members of this many zeros each (made once, then repeated). */
const MEMBER = 64 * CHUNK;

/**
 * Writes `out`: the tar inside the gzip bundle `file`, then `padding` bytes of `byte` (zeros by default) in the same
 * gzip stream, at the best compression. Zeros shrink about 1000:1, so a few KB of file make an importer read
 * megabytes after the archive's end-of-archive marker. Padding beyond 64 MiB follows as further gzip members of
 * 64 MiB of zeros each (gunzip reads them as one stream), so 2 GB cost one 64 MiB compression, not 2 GB of it.
 */
export async function padBundle(
  file: string,
  out: string,
  padding: number,
  options: { readonly byte?: number } = {},
): Promise<void> {
  const tar = gunzipSync(await readFile(file));
  const inline = Math.min(padding, MEMBER);
  const filler = Buffer.alloc(Math.min(CHUNK, inline), options.byte ?? 0);
  function* chunks(): Generator<Buffer> {
    yield tar;
    for (let left = inline; left > 0; left -= CHUNK) yield left >= CHUNK ? filler : filler.subarray(0, left);
  }
  const output = createWriteStream(out);
  await pipeline(Readable.from(chunks()), createGzip({ level: constants.Z_BEST_COMPRESSION }), output, {
    end: false,
  });
  let left = padding - inline;
  if (left > 0) {
    const member = gzipSync(Buffer.alloc(MEMBER, options.byte ?? 0), { level: constants.Z_BEST_COMPRESSION });
    for (; left >= MEMBER; left -= MEMBER) {
      if (!output.write(member))
        await new Promise<void>((resolve) =>
          output.once('drain', () => {
            resolve();
          }),
        );
    }
    if (left > 0) output.write(gzipSync(Buffer.alloc(left, options.byte ?? 0)));
  }
  await new Promise<void>((resolve, reject) => {
    output.end((error?: Error | null) => {
      if (error) reject(error);
      else resolve();
    });
  });
}
