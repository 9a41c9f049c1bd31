import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { tempProject } from './temp-project.js';

/** A valid `development_result` payload. */
export const DEVELOPMENT_RESULT = {
  outcome: 'completed',
  summary: 'Added the submit command.',
  changed_files: [{ path: 'src/cli/submit-command.ts', change: 'added' }],
  checks_run: [{ command: 'npx vitest run test/cli', result: 'passed' }],
  reviewer_focus: ['the stdin limit'],
} as const;

/** A valid `commit_message` payload with the given subject. */
export function commitMessage(subject: string): Record<string, unknown> {
  return { type: 'feat', scope: 'cli', subject, breaking: false };
}

/** A real temporary project holding a run folder for each id (`.agent/runs/<id>/`), as a run leaves it. */
export async function contractProject(runIds: readonly string[] = ['run-1']): Promise<string> {
  const projectDir = await tempProject();
  for (const runId of runIds)
    await mkdir(path.join(projectDir, '.agent', 'runs', runId), { recursive: true });
  return projectDir;
}
