import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLineSchema } from '../../src/events/index.js';

const FIXTURE = fileURLToPath(new URL('fixtures/append-events.ts', import.meta.url));
const WRITERS = 6;
const EVENTS_PER_WRITER = 2000;

let dir = '';
afterEach(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

function startWriter(project: string, writer: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', FIXTURE, project, writer, String(EVENTS_PER_WRITER)],
    { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => {
      resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`writer ${writer} exited with ${String(code)} before it was ready`));
    });
  });
  return { child, ready };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', resolve));
}

describe('openRunEventLog with concurrent writer processes', () => {
  it('keeps every line whole, counts exact and each writer in order when 6 processes append at once', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'events-concurrency-'));
    const file = path.join(dir, '.agent', 'runs', 'r1', 'events.jsonl');
    const writers = Array.from({ length: WRITERS }, (_, index) => startWriter(dir, `w${String(index)}`));
    await Promise.all(writers.map(({ ready }) => ready));
    // Every writer is loaded and waiting; release them together so their bursts overlap.
    for (const { child } of writers) child.stdin?.end('go\n');
    const codes = await Promise.all(writers.map(({ child }) => exited(child)));
    expect(codes).toEqual(Array.from({ length: WRITERS }, () => 0));

    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    // A writer descheduled mid-line for longer than the settle time makes another take its line for an
    // interrupted one and start on a fresh line: at worst an empty line between whole ones (D55), which readers
    // skip. Every event line must still be whole and counted exactly.
    const all = text.slice(0, -1).split('\n');
    const lines = all.filter((line) => line !== '');
    expect(lines).toHaveLength(WRITERS * EVENTS_PER_WRITER);
    expect(all.length - lines.length).toBeLessThan(WRITERS * EVENTS_PER_WRITER * 0.01);

    const nextSeq = new Map<string, number>();
    let switches = 0;
    let previousWriter = '';
    for (const line of lines) {
      const event = eventLineSchema.parse(JSON.parse(line));
      const writer = String(event['writer']);
      const seq = Number(event['seq']);
      expect(seq).toBe(nextSeq.get(writer) ?? 0);
      expect(String(event['padding']).startsWith(`${writer}:${String(seq)}:`)).toBe(true);
      nextSeq.set(writer, seq + 1);
      if (writer !== previousWriter) switches += 1;
      previousWriter = writer;
    }
    expect([...nextSeq.values()]).toEqual(Array.from({ length: WRITERS }, () => EVENTS_PER_WRITER));
    // The writers really did overlap: a serial run would switch writer only WRITERS times.
    expect(switches).toBeGreaterThan(WRITERS);
  });
});
