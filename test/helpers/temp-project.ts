import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Creates a real temporary project with the given files (path -> text or bytes); removed after the test. */
export async function tempProject(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ai-project-'));
  created.push(dir);
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}

/** Reads a run's events.jsonl as parsed objects (every line must be JSON). */
export async function readEvents(projectDir: string, runId: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(projectDir, '.agent', 'runs', runId, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A fenced candidate block as an agent would write it. */
export function fileBlock(lang: string, file: string, content: string, fence = '```'): string {
  return `${fence}${lang} file=${file}\n${content}${content === '' || content.endsWith('\n') ? '' : '\n'}${fence}\n`;
}
