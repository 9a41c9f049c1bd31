import { AGENT_DIR, WORKSPACE_DIR } from '../../project/index.js';
import { judgeCopyTarget } from '../../workspace/index.js';
import { LineageError } from './lineage-error.js';

/** Refuses a target inside the project's workspace/ or .agent/ (or the project root), or one that is not empty. */
export async function checkCheckoutTarget(projectDir: string, to: string): Promise<void> {
  const verdict = await judgeCopyTarget(projectDir, to, [WORKSPACE_DIR, AGENT_DIR]);
  if (verdict === undefined) return;
  switch (verdict.code) {
    case 'inside_project':
      throw new LineageError({
        code: 'target_inside_project',
        message: `checkout target ${to} is ${verdict.projectRoot ? 'the project root' : `inside the project's ${WORKSPACE_DIR}/ or ${AGENT_DIR}/`}; checkout never writes there, pick a folder outside them`,
      });
    case 'not_a_directory':
      throw notEmpty(to, 'is not a directory');
    case 'not_empty':
      throw notEmpty(to, `holds ${String(verdict.entries)} entries`);
  }
}

function notEmpty(to: string, detail: string): LineageError {
  return new LineageError({
    code: 'target_not_empty',
    message: `checkout target ${to} ${detail}; check out into a new or empty folder`,
  });
}
