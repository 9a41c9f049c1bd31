import { execFileSync } from 'node:child_process';
import { link, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProjectStore } from '../../src/store/files-store.js';
import { tempProject } from '../helpers/temp-project.js';
import { storeErrorOf } from './store-error-of.js';

// The files store against the real filesystem: today's layout byte for byte, and nothing read or written
// through a symlink, a FIFO or a hard link planted in .agent/.

describe('openProjectStore', () => {
  it('writes each key at that path of the project folder, exactly the bytes given', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    expect(store.location).toBe(path.join(projectDir, '.agent'));
    await store.replace('.agent/runs/r1/state.json', '{"a":1}\n');
    await store.append('.agent/runs/r1/events.jsonl', '{"e":1}\n');
    await store.append('.agent/runs/r1/events.jsonl', '{"e":2}\n');
    expect(await readFile(path.join(projectDir, '.agent/runs/r1/state.json'), 'utf8')).toBe('{"a":1}\n');
    expect(await readFile(path.join(projectDir, '.agent/runs/r1/events.jsonl'), 'utf8')).toBe(
      '{"e":1}\n{"e":2}\n',
    );
    await store.close();
  });

  it('reads what other code wrote there, and creates nothing when only read', async () => {
    const reader = await tempProject({ '.agent/runs/r1/terminal.json': '{"state":"done"}' });
    const store = openProjectStore(reader);
    expect(await store.readText('.agent/runs/r1/terminal.json')).toBe('{"state":"done"}');
    const empty = await tempProject();
    const untouched = openProjectStore(empty);
    expect(await untouched.read('.agent/runs/r1/state.json')).toBeUndefined();
    expect(await untouched.list('.agent/runs')).toEqual([]);
    expect(await readdir(empty)).toEqual([]);
    await store.close();
    await untouched.close();
  });

  it('reads whole files of every size exactly, each its own bytes', async () => {
    // A whole-file read hands out a view of the buffer it read into (no copy): each answer its own, exact bytes.
    const sizes = [0, 1, 4095, 4097, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300 * 1024];
    const files: Record<string, string> = {};
    for (const size of sizes) {
      files[`.agent/index/f${String(size)}.jsonl`] = Array.from({ length: size }, (_, i) =>
        i % 97 === 96 ? '\n' : String.fromCharCode(97 + (i % 26)),
      ).join('');
    }
    const projectDir = await tempProject(files);
    const store = openProjectStore(projectDir);
    for (const size of sizes) {
      const key = `.agent/index/f${String(size)}.jsonl`;
      const bytes = await store.read(key);
      expect(bytes?.byteLength).toBe(size);
      expect(Buffer.from(bytes ?? new Uint8Array()).equals(await readFile(path.join(projectDir, key)))).toBe(
        true,
      );
      expect(await store.readText(key)).toBe(files[key]);
      // Its own memory: changing one answer changes no other, and it shows no bytes beyond the file's.
      if (bytes !== undefined && size > 0) {
        expect(bytes.buffer.byteLength).toBeLessThanOrEqual(size + 1);
        bytes[0] = 0x21;
        expect(await store.readText(key)).toBe(files[key]);
      }
    }
    await store.close();
  });

  it('neither reads nor writes through a symlinked .agent, and leaves its target alone', async () => {
    const outside = await tempProject({ 'runs/r1/state.json': 'outside' });
    const projectDir = await tempProject();
    await symlink(outside, path.join(projectDir, '.agent'));
    const store = openProjectStore(projectDir);
    expect((await storeErrorOf(store.read('.agent/runs/r1/state.json'))).code).toBe('not_a_file');
    expect((await storeErrorOf(store.replace('.agent/runs/r1/state.json', 'planted'))).code).toBe(
      'write_refused',
    );
    expect((await storeErrorOf(store.append('.agent/runs/r1/events.jsonl', '{}\n'))).code).toBe(
      'write_refused',
    );
    expect((await storeErrorOf(store.list('.agent/runs'))).code).toBe('not_a_file');
    expect(await readFile(path.join(outside, 'runs/r1/state.json'), 'utf8')).toBe('outside');
    expect(await readdir(path.join(outside, 'runs/r1'))).toEqual(['state.json']);
    await store.close();
  });

  it('refuses a symlinked run folder and a symlinked file, and removes a symlink, not its target', async () => {
    const outside = await tempProject({ 'state.json': 'secret' });
    const projectDir = await tempProject({ '.agent/runs/r2/state.json': '{}' });
    await symlink(outside, path.join(projectDir, '.agent/runs/r1'));
    await symlink(path.join(outside, 'state.json'), path.join(projectDir, '.agent/runs/r2/terminal.json'));
    const store = openProjectStore(projectDir);
    const read = await storeErrorOf(store.read('.agent/runs/r1/state.json'));
    expect(read.code).toBe('not_a_file');
    expect(read.message).toContain('is a symlink');
    expect((await storeErrorOf(store.read('.agent/runs/r2/terminal.json'))).code).toBe('not_a_file');
    expect((await storeErrorOf(store.replace('.agent/runs/r1/state.json', 'x'))).code).toBe('write_refused');
    expect(await store.list('.agent/runs')).toEqual([
      { name: 'r1', kind: 'other' },
      { name: 'r2', kind: 'folder' },
    ]);
    expect(await store.remove('.agent/runs/r2/terminal.json')).toBe(true);
    expect(await readFile(path.join(outside, 'state.json'), 'utf8')).toBe('secret');
    await store.close();
  });

  it('refuses a FIFO without waiting on it, and a file with a second name outside', async () => {
    const outside = await tempProject({ 'secret.txt': 'secret' });
    const projectDir = await tempProject({ '.agent/runs/r1/state.json': '{}' });
    execFileSync('mkfifo', [path.join(projectDir, '.agent/runs/r1/events.jsonl')]);
    await link(path.join(outside, 'secret.txt'), path.join(projectDir, '.agent/runs/r1/terminal.json'));
    const store = openProjectStore(projectDir);
    const fifo = await storeErrorOf(store.read('.agent/runs/r1/events.jsonl'));
    expect(fifo.message).toContain('a FIFO, socket or device');
    const hardLink = await storeErrorOf(store.read('.agent/runs/r1/terminal.json'));
    expect(hardLink.message).toContain('hard link');
    expect((await storeErrorOf(store.append('.agent/runs/r1/events.jsonl', '{}\n'))).code).toBe(
      'write_refused',
    );
    await store.close();
  });

  it('opens no reader through a symlink, on a FIFO or on a file with a second name', async () => {
    const outside = await tempProject({ 'events.jsonl': '{"outside":true}\n' });
    const projectDir = await tempProject({ '.agent/runs/r2/state.json': '{}' });
    await symlink(outside, path.join(projectDir, '.agent/runs/r1'));
    await symlink(path.join(outside, 'events.jsonl'), path.join(projectDir, '.agent/runs/r2/events.jsonl'));
    execFileSync('mkfifo', [path.join(projectDir, '.agent/runs/r2/fifo.jsonl')]);
    await link(path.join(outside, 'events.jsonl'), path.join(projectDir, '.agent/runs/r2/linked.jsonl'));
    const store = openProjectStore(projectDir);
    for (const key of [
      '.agent/runs/r1/events.jsonl',
      '.agent/runs/r2/events.jsonl',
      '.agent/runs/r2/fifo.jsonl',
      '.agent/runs/r2/linked.jsonl',
    ]) {
      expect((await storeErrorOf(store.openReader(key))).code).toBe('not_a_file');
    }
    await store.close();
  });

  it("starts an appender's first line on a fresh line after a writer killed mid-line", async () => {
    const projectDir = await tempProject({ '.agent/runs/r1/events.jsonl': '{"n":1}\n{"torn":' });
    const store = openProjectStore(projectDir);
    const appender = await store.openAppender('.agent/runs/r1/events.jsonl');
    appender.write('{"n":2}\n');
    await appender.close();
    expect(await readFile(path.join(projectDir, '.agent/runs/r1/events.jsonl'), 'utf8')).toBe(
      '{"n":1}\n{"torn":\n{"n":2}\n',
    );
    await store.close();
  });

  it('refuses an appender or a lock through a symlink, and writes nothing outside', async () => {
    const outside = await tempProject({ 'events.jsonl': 'outside\n' });
    const projectDir = await tempProject({ '.agent/runs/r1/state.json': '{}' });
    await symlink(path.join(outside, 'events.jsonl'), path.join(projectDir, '.agent/runs/r1/events.jsonl'));
    await symlink(outside, path.join(projectDir, '.agent/runs/r2'));
    const store = openProjectStore(projectDir);
    expect((await storeErrorOf(store.openAppender('.agent/runs/r1/events.jsonl'))).code).toBe(
      'write_refused',
    );
    expect((await storeErrorOf(store.createExclusive('.agent/runs/r2/lock', 'me\n'))).code).toBe(
      'write_refused',
    );
    // A release never throws: a lock behind a symlink is not the holder's to remove.
    await expect(store.removeIfHolds('.agent/runs/r2/lock', 'me\n')).resolves.toBeUndefined();
    expect(await readdir(outside)).toEqual(['events.jsonl']);
    expect(await readFile(path.join(outside, 'events.jsonl'), 'utf8')).toBe('outside\n');
    await store.close();
  });

  it('creates a folder by one rename of a staging folder, keeping an empty folder, and leaves none behind', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    await store.createFolder('.agent/runs/r1', async (draft) => {
      await draft.makeFolder('.agent/runs/r1/replies/none');
      await draft.write('.agent/runs/r1/state.json', '{}\n');
      // The staging folder beside it starts with '.', so a reader of .agent/runs lists no run yet.
      expect((await readdir(path.join(projectDir, '.agent/runs'))).map((name) => name.slice(0, 4))).toEqual([
        '.r1.',
      ]);
    });
    expect(await readdir(path.join(projectDir, '.agent/runs'))).toEqual(['r1']);
    expect(await readdir(path.join(projectDir, '.agent/runs/r1/replies'))).toEqual(['none']);
    expect(await readFile(path.join(projectDir, '.agent/runs/r1/state.json'), 'utf8')).toBe('{}\n');
    await store.close();
  });

  it('refuses to create a folder through a symlinked .agent/runs, writing nothing there', async () => {
    const projectDir = await tempProject();
    const elsewhere = await tempProject();
    await mkdir(path.join(projectDir, '.agent'));
    await symlink(elsewhere, path.join(projectDir, '.agent/runs'));
    const store = openProjectStore(projectDir);
    const error = await storeErrorOf(
      store.createFolder('.agent/runs/r1', (draft) => draft.write('.agent/runs/r1/state.json', '{}\n')),
    );
    expect(error).toMatchObject({ code: 'write_refused', key: '.agent/runs/r1' });
    expect(await readdir(elsewhere)).toEqual([]);
    await store.close();
  });

  it('opens the objects read only without creating .agent/objects', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const objects = await store.openObjects({ readOnly: true });
    expect(await objects.verify(`sha256:${'ab'.repeat(32)}`)).toBe('missing');
    await objects.close();
    expect(await readdir(projectDir)).toEqual([]);
    await store.close();
  });

  it('finds a project folder made after the store was opened', async () => {
    const parent = await tempProject();
    const projectDir = path.join(parent, 'later');
    const store = openProjectStore(projectDir);
    await expect(store.read('.agent/runs/r1/state.json')).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(projectDir);
    await store.replace('.agent/runs/r1/state.json', '{}');
    expect((await stat(path.join(projectDir, '.agent/runs/r1/state.json'))).size).toBe(2);
    await writeFile(path.join(projectDir, '.agent/runs/r1/manifest.json'), '[]');
    expect(await store.readText('.agent/runs/r1/manifest.json')).toBe('[]');
    await store.close();
  });
});
