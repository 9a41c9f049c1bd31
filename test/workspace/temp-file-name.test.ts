import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { TEMP_FILE_PATTERN, tempFileName, tempFileWriter } from '../../src/workspace/temp-file-name.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const hex8 = (value: number): string => value.toString(16).padStart(8, '0');
const thisHost = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const tagged = (host: string, pid: number): string =>
  `.artifact-ingest-${host}-${hex8(pid)}-0123456789abcdef.tmp`;

describe('tempFileName', () => {
  it('makes distinct names that match the temp pattern, name this host and process, and stay short', () => {
    const names = new Set(Array.from({ length: 100 }, () => tempFileName()));
    expect(names.size).toBe(100);
    for (const name of names) {
      expect(name).toMatch(TEMP_FILE_PATTERN);
      expect(name.startsWith(`.artifact-ingest-${thisHost}-${hex8(process.pid)}-`)).toBe(true);
      expect(name).toHaveLength(55);
    }
  });

  it('still recognises the older untagged name, and nothing else', () => {
    expect('.artifact-ingest-0123456789abcdef.tmp').toMatch(TEMP_FILE_PATTERN);
    for (const name of [
      '.artifact-ingest-0123.tmp',
      '.artifact-ingest-0123456789ABCDEF.tmp',
      `.artifact-ingest-${thisHost}-0123456789abcdef.tmp`,
      'notes.tmp',
    ])
      expect(name).not.toMatch(TEMP_FILE_PATTERN);
  });
});

describe('tempFileWriter', () => {
  it.each([
    ['a live process of this host', (): string => tagged(thisHost, process.pid), 'alive'],
    ['a process of this host that is gone', (): string => tagged(thisHost, deadPid()), 'gone'],
    [
      'another host',
      (): string => tagged(thisHost === 'ffffffff' ? '00000000' : 'ffffffff', deadPid()),
      'unknown',
    ],
    ['the older untagged name', (): string => '.artifact-ingest-0123456789abcdef.tmp', 'unknown'],
  ] as const)('says %s', (_what, name, writer) => {
    expect(tempFileWriter(name())).toBe(writer);
  });
});
