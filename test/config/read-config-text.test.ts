import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, open, symlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import {
  MAX_CONFIG_FILE_BYTES,
  readConfigText,
  readOpenedConfigText,
} from '../../src/config/read-config-text.js';
import { tempProject } from '../helpers/temp-project.js';

describe('readConfigText', () => {
  it('reads UTF-8 text as written, CRLF included, without a byte order mark', async () => {
    const dir = await tempProject({ 'g.yaml': '\uFEFFname: é\r\n' });
    await expect(readConfigText(path.join(dir, 'g.yaml'))).resolves.toBe('name: é\r\n');
  });

  it.each([
    ['a missing file', 'missing.yaml'],
    ['a path through a file', 'g.yaml/inner.yaml'],
  ])('returns undefined for %s', async (_name, relative) => {
    const dir = await tempProject({ 'g.yaml': 'x' });
    await expect(readConfigText(path.join(dir, relative))).resolves.toBeUndefined();
  });

  it('reads through a symlink to a file', async () => {
    const dir = await tempProject({ 'real.yaml': 'name: g\n' });
    await symlink(path.join(dir, 'real.yaml'), path.join(dir, 'link.yaml'));
    await expect(readConfigText(path.join(dir, 'link.yaml'))).resolves.toBe('name: g\n');
  });

  it('accepts a file of exactly the one limit (1 MiB) and refuses one byte more', async () => {
    const limit = MAX_CONFIG_FILE_BYTES;
    expect(limit).toBe(1024 * 1024);
    const dir = await tempProject({ 'at.yaml': 'x'.repeat(limit), 'over.yaml': 'x'.repeat(limit + 1) });
    await expect(readConfigText(path.join(dir, 'at.yaml'))).resolves.toHaveLength(limit);
    await expect(readConfigText(path.join(dir, 'over.yaml'))).rejects.toThrow(
      `is ${String(limit + 1)} bytes; config and definition files are limited to ${String(limit)} bytes`,
    );
  });

  it.each([
    ['a directory', 'is a directory; give the path of a YAML file'],
    ['a FIFO', 'is not a regular file; give the path of a YAML file'],
    ['bytes that are not UTF-8', 'is not valid UTF-8; save it as UTF-8'],
  ])('refuses %s with a ConfigError naming the file', async (kind, message) => {
    const dir = await tempProject();
    const file = path.join(dir, 'g.yaml');
    if (kind === 'a directory') await mkdir(file);
    if (kind === 'a FIFO') execFileSync('mkfifo', [file]);
    if (kind === 'bytes that are not UTF-8') await writeFile(file, new Uint8Array([0x61, 0xff, 0x62]));
    const error = await readConfigText(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).source).toBe(file);
    expect((error as ConfigError).issues).toEqual([{ path: '', message }]);
  });
});

describe('readOpenedConfigText', () => {
  it('reads no more than the limit of a file that grew past it after its fstat', async () => {
    const dir = await tempProject({ 'g.yaml': 'name: g\n' });
    const file = path.join(dir, 'g.yaml');
    const handle = await open(file, 'r');
    try {
      const before = await handle.stat();
      await appendFile(file, 'x'.repeat(MAX_CONFIG_FILE_BYTES));
      // The real file, grown on disk; only its fstat answers as it did before the growth.
      const grown = { stat: () => Promise.resolve(before), read: handle.read.bind(handle) } as FileHandle;
      const error = await readOpenedConfigText(grown, file).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues[0]?.message).toBe(
        `is more than ${String(MAX_CONFIG_FILE_BYTES)} bytes; config and definition files are limited to ${String(MAX_CONFIG_FILE_BYTES)} bytes`,
      );
    } finally {
      await handle.close();
    }
  });
});
