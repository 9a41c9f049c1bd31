import { mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_FILE_PATTERN } from '../../src/workspace/temp-file-name.js';
import { WorkspaceError } from '../../src/workspace/workspace-error.js';
import { writeFileAtomically } from '../../src/workspace/write/write-file-atomically.js';

const fillWith =
  (text: string) =>
  async (handle: FileHandle): Promise<number> => {
    const { bytesWritten } = await handle.write(Buffer.from(text));
    return bytesWritten;
  };

describe('writeFileAtomically', () => {
  let base: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'artifact-ingest-atomic-'));
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const tempFiles = async (): Promise<string[]> =>
    (await readdir(base)).filter((name) => TEMP_FILE_PATTERN.test(name));

  it('writes the file whole and leaves no temp file', async () => {
    const target = join(base, 'out.tar.gz');
    expect(await writeFileAtomically(target, fillWith('archive'))).toEqual({
      status: 'written',
      path: target,
      bytes: 7,
    });
    expect(await readFile(target, 'utf8')).toBe('archive');
    expect(await tempFiles()).toEqual([]);
  });

  it('keeps an existing file unless asked to replace it', async () => {
    const target = join(base, 'out');
    await writeFile(target, 'old');
    expect(await writeFileAtomically(target, fillWith('new'))).toEqual({ status: 'exists', path: target });
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await writeFileAtomically(target, fillWith('new'), { replace: true })).toMatchObject({
      status: 'written',
    });
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await tempFiles()).toEqual([]);
  });

  it('never writes through a symlink planted at the target', async () => {
    const victim = join(base, 'victim');
    await writeFile(victim, 'victim');
    const target = join(base, 'out');
    await symlink(victim, target);
    expect(await writeFileAtomically(target, fillWith('new'))).toEqual({ status: 'exists', path: target });
    // replace swaps the link itself for the file: the file it pointed to is untouched.
    await writeFileAtomically(target, fillWith('new'), { replace: true });
    expect(await readFile(victim, 'utf8')).toBe('victim');
    expect(await readFile(target, 'utf8')).toBe('new');
    await expect(readlink(target)).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it('leaves no partial file and no temp file when filling fails midway', async () => {
    const target = join(base, 'out');
    const failing = async (handle: FileHandle): Promise<number> => {
      await handle.write(Buffer.from('half'));
      throw new Error('disk gone');
    };
    await expect(writeFileAtomically(target, failing)).rejects.toThrow('disk gone');
    expect(await readdir(base)).toEqual([]);
  });

  it('moves the file into place only after the check read it back, and keeps the old file when the check throws', async () => {
    const target = join(base, 'out');
    await writeFile(target, 'old');
    const seen: string[] = [];
    const refusing = async (temp: string): Promise<void> => {
      seen.push(await readFile(temp, 'utf8'));
      throw new Error('does not read back');
    };
    await expect(
      writeFileAtomically(target, fillWith('new'), { replace: true, check: refusing }),
    ).rejects.toThrow('does not read back');
    expect(seen).toEqual(['new']);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await tempFiles()).toEqual([]);
    await writeFileAtomically(target, fillWith('new'), { replace: true, check: () => Promise.resolve() });
    expect(await readFile(target, 'utf8')).toBe('new');
  });

  it('throws a WorkspaceError naming open when the folder does not exist', async () => {
    const error: unknown = await writeFileAtomically(join(base, 'missing', 'out'), fillWith('x')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ syscall: 'open', code: 'ENOENT' });
  });
});
