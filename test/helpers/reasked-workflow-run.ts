import { advanceWorkflow, startWorkflow } from '../../src/workflow/index.js';
import type { WorkflowEngineDeps } from '../../src/workflow/index.js';
import { tempProject } from './temp-project.js';

/** The run id of {@link reaskedWorkflowRun}. */
export const REASKED_RUN_ID = 'wf-fix';

const WORKFLOW = `name: fix
version: "1"
steps:
  - id: develop
    contract: development_result
    instructions: "Write the parser."
  - id: review
    instructions: "Review it."
`;

// Each answer writes the parser anew, so each attempt's ingest writes it.
const artifactAnswer = (payload: { readonly outcome: string; readonly [field: string]: unknown }): string =>
  `Done.\n\n\`\`\`ts file=src/parser.ts\nexport const outcome = '${payload.outcome}';\n\`\`\`\n\n\`\`\`json artifact=development_result\n${JSON.stringify(payload)}\n\`\`\`\n`;

/**
 * A real workflow run on disk, made through the engine with a clock that ticks a second per reading: `develop`
 * answers with a malformed `development_result` (a fix re-ask), then a valid one; `review` is left running.
 * `ingest` sets ARTIFACT_INGEST for every advance; `answers` stops after that many advances (0: just started).
 */
export async function reaskedWorkflowRun(options: {
  readonly ingest: boolean;
  readonly answers?: number;
}): Promise<string> {
  const projectDir = await tempProject({ 'workflows/fix.yaml': WORKFLOW });
  let tick = Date.parse('2026-03-01T10:00:00.000Z');
  const deps: WorkflowEngineDeps = {
    durability: 'none',
    snapshots: false,
    env: { ARTIFACT_INGEST: options.ingest ? '1' : '0' },
    now: () => new Date((tick += 1000)),
  };
  await startWorkflow(projectDir, { workflow: 'fix', run_id: REASKED_RUN_ID }, deps);
  const answers = options.answers ?? 2;
  if (answers === 0) return projectDir;
  await advanceWorkflow(projectDir, { output: artifactAnswer({ outcome: 'done', summary: 'x' }) }, deps);
  if (answers === 1) return projectDir;
  await advanceWorkflow(
    projectDir,
    {
      output: artifactAnswer({
        outcome: 'completed',
        summary: 'Added the parser.',
        changed_files: [{ path: 'src/parser.ts', change: 'added' }],
        checks_run: [{ command: 'npm test', result: 'passed' }],
        reviewer_focus: ['the error messages'],
      }),
    },
    deps,
  );
  return projectDir;
}
