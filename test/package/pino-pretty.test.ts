import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';
import { REPO, runProgram } from './packed-package.js';

/** The pino-pretty flags docs/events.md prints, read from the page itself. */
async function documentedFlags(): Promise<string[]> {
  const page = await readFile(path.join(REPO, 'docs/events.md'), 'utf8');
  const command = /^\$ npx pino-pretty (.*) < \.agent\/runs\/<run_id>\/events\.jsonl$/m.exec(page)?.[1];
  expect(command, 'docs/events.md shows a pino-pretty command').toBeDefined();
  return command!.split(' ');
}

/** A real events.jsonl from the built CLI: blocks written and rejected, one document with none written. */
async function ingestedEvents(): Promise<string> {
  const project = await tempProject({
    'docs/a.md': `# A\n\n${fileBlock('ts', 'src/a.ts', 'export const a = 1;')}\n${fileBlock('sh', '../../etc/passwd', 'x')}`,
    'docs/b.md': `# B\n\n${fileBlock('sh', '/etc/passwd', 'x')}`,
  });
  const result = await runCli(['ingest', '--run-id', 'r1'], { cwd: project });
  expect(result.code).toBe(0);
  return readFile(path.join(project, '.agent', 'runs', 'r1', 'events.jsonl'), 'utf8');
}

const pinoPretty = path.join(REPO, 'node_modules', '.bin', 'pino-pretty');

describe('pino-pretty with the flags docs/events.md shows', () => {
  it('renders each line of a real events.jsonl as its level name and event name, with colours by level', async () => {
    const [flags, events] = await Promise.all([documentedFlags(), ingestedEvents()]);
    const lines = events
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; event: string; ts: string });
    // The three levels and the ingest's events occur, so every mapping is exercised.
    expect(new Set(lines.map((line) => line.level))).toEqual(new Set(['INFO', 'WARNING', 'ERROR']));
    expect(new Set(lines.map((line) => line.event))).toEqual(
      new Set(['ingest.started', 'ingest.block', 'ingest.summary']),
    );

    // NO_COLOR: the plain rendering, whatever the environment vitest runs in says about colours.
    const plain = await runProgram(pinoPretty, flags, { cwd: REPO, input: events, env: { NO_COLOR: '1' } });
    expect(plain.code).toBe(0);
    const headers = plain.stdout.split('\n').filter((line) => !line.startsWith(' ') && line !== '');
    expect(headers).toEqual(lines.map((line) => `[${timeOf(line.ts)}] ${line.level}: ${line.event}`));
    expect(plain.stdout).not.toContain('USERLVL');
    expect(plain.stdout).toContain('    declared_file: "../../etc/passwd"');

    // What a terminal gets: pino-pretty colours a level only when --customLevels maps its name.
    const coloured = await runProgram(pinoPretty, [...flags, '--colorize'], { cwd: REPO, input: events });
    const colour = { INFO: '\u001b[32m', WARNING: '\u001b[33m', ERROR: '\u001b[31m' } as const;
    for (const level of ['INFO', 'WARNING', 'ERROR'] as const) {
      expect(coloured.stdout).toContain(`${colour[level]}${level}\u001b[39m`);
    }
  });
});

/** The `HH:MM:ss.l` pino-pretty prints by default for an ISO time, in the local zone. */
function timeOf(iso: string): string {
  const date = new Date(iso);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}
