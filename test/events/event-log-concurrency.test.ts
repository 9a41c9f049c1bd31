import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLineSchema } from '../../src/events/index.js';

const WRITERS = 6;
const EVENTS_PER_WRITER = 2000;
const BUILT_EVENTS = new URL('../../dist/events/index.js', import.meta.url).href;

/**
 * A writer child: plain Node on the build (dist/, as the CLI runs; no TypeScript loader to start in each of six
 * processes) that opens run r1's events.jsonl of the project, says "ready", and on "go" appends numbered events.
 * Padding: 1-4 KiB, and 40 KiB every 250th event, bigger than sonic-boom's 16 KiB maxWrite chunk.
 */
const WRITER_SCRIPT = `const { openRunEventLog } = await import(${JSON.stringify(BUILT_EVENTS)});
const [project, writer, countText] = process.argv.slice(1);
const count = Number(countText);
const paddingFor = (seq) =>
  \`\${writer}:\${String(seq)}:\`.padEnd(seq % 250 === 249 ? 40 * 1024 : 1024 + ((seq * 613) % 3072), 'abcdefghij');
const log = await openRunEventLog(project, 'r1', { run_id: 'concurrency', writer });
process.stdin.once('data', () => {
  for (let seq = 0; seq < count; seq += 1) log.write('INFO', 'test.append', { seq, padding: paddingFor(seq) });
  log.close().then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(\`\${String(error)}\\n\`);
      process.exit(1);
    },
  );
});
process.stdout.write('ready\\n');
`;

let dir = '';
afterEach(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

function startWriter(project: string, writer: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER_SCRIPT, project, writer, String(EVENTS_PER_WRITER)],
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
