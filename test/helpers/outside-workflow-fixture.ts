import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A valid workflow definition named `name` whose one step says `says`. */
export function workflowYaml(name: string, says = 'Do the work.'): string {
  return `name: ${name}\nversion: "1"\ndescription: d\nsteps:\n  - id: only\n    instructions: "${says}"\n`;
}

/**
 * What an outside file holds: secret-looking lines and YAML-ish unknown keys. None of these strings may ever
 * appear in an error (the fixture's paths do not contain them).
 */
export const OUTSIDE_SECRET_TEXT = [
  'root:$6$zqsalt$zqH4shzqH4shzqH4sh:19000:0:99999:7:::',
  'zq_password: hunter2-zq-outside',
  'zq_api_key: sk-proj-ZQoutsideZQoutsideZQoutside0123',
  'zq_marker_key: zq-marker-value',
  'ZQ_TOKEN=ghp_ZQoutsideZQoutsideZQoutsideZQoutside12',
  '',
].join('\n');

/** Substrings of {@link OUTSIDE_SECRET_TEXT} (and of the outside evil workflow) that must never be echoed. */
export const OUTSIDE_MARKERS = [
  'zqsalt',
  'zqH4sh',
  'zq_password',
  'hunter2',
  'zq_api_key',
  'ZQoutside',
  'zq_marker_key',
  'zq-marker-value',
  'ZQ_TOKEN',
  'EVIL-ZQ',
] as const;

/** A project and a folder beside it, with every way a workflow reference could reach outside the project. */
export interface OutsideWorkflowFixture {
  /** The project root (a real path). */
  readonly projectDir: string;
  /** The folder beside the project (a real path). */
  readonly outsideDir: string;
  /** Outside: secret-looking lines that are not a workflow. */
  readonly secretFile: string;
  /** Outside: a valid workflow named `evil`. */
  readonly evilFile: string;
  /** Outside: a path where nothing is. */
  readonly missingFile: string;
  /** Outside: a FIFO (opening it for reading without O_NONBLOCK would wait forever). */
  readonly fifoFile: string;
}

/**
 * Creates `<tmp>/project` with `workflows/good.yaml` (valid), `workflows/link.yaml` (a symlink to the outside
 * evil.yaml), `workflows/dangling.yaml` (a symlink to an outside path where nothing is), `workflows/ext` (a
 * symlink to the outside folder) and `docs/evil.yaml` (valid, but not under workflows/); and `<tmp>/outside`
 * with secret.yaml, evil.yaml and a FIFO. Removed after the test.
 */
export async function outsideWorkflowFixture(): Promise<OutsideWorkflowFixture> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'ai-outside-')));
  created.push(root);
  const projectDir = path.join(root, 'project');
  const outsideDir = path.join(root, 'outside');
  await mkdir(path.join(projectDir, 'workflows'), { recursive: true });
  await mkdir(path.join(projectDir, 'docs'), { recursive: true });
  await mkdir(outsideDir);
  const secretFile = path.join(outsideDir, 'secret.yaml');
  const evilFile = path.join(outsideDir, 'evil.yaml');
  const missingFile = path.join(outsideDir, 'missing.yaml');
  const fifoFile = path.join(outsideDir, 'fifo.yaml');
  await writeFile(secretFile, OUTSIDE_SECRET_TEXT);
  await writeFile(evilFile, workflowYaml('evil', 'EVIL-ZQ instructions'));
  // mkfifo is not in node:fs; make one with the coreutils tool.
  execFileSync('mkfifo', [fifoFile]);
  await writeFile(path.join(projectDir, 'workflows', 'good.yaml'), workflowYaml('good'));
  await writeFile(path.join(projectDir, 'docs', 'evil.yaml'), workflowYaml('evil', 'EVIL-ZQ inside'));
  await symlink(evilFile, path.join(projectDir, 'workflows', 'link.yaml'));
  await symlink(missingFile, path.join(projectDir, 'workflows', 'dangling.yaml'));
  await symlink(outsideDir, path.join(projectDir, 'workflows', 'ext'));
  return { projectDir, outsideDir, secretFile, evilFile, missingFile, fifoFile };
}

/**
 * Every reference that must be refused, with the one refusal, as `[what, reference]` (paths relative to the
 * project root, as `workflow_start` takes them).
 */
export function outsideReferences(fixture: OutsideWorkflowFixture): readonly (readonly [string, string])[] {
  return [
    ['an absolute path to an outside file of secrets', fixture.secretFile],
    ['an absolute path to a valid outside workflow', fixture.evilFile],
    ['an absolute path to an outside path where nothing is', fixture.missingFile],
    ['an absolute path to an outside FIFO', fixture.fifoFile],
    ['an absolute path to an outside folder', fixture.outsideDir],
    ['/proc/self/environ', '/proc/self/environ'],
    ['/etc/passwd', '/etc/passwd'],
    ['../outside/evil.yaml', '../outside/evil.yaml'],
    ['workflows/../../outside/evil.yaml', 'workflows/../../outside/evil.yaml'],
    ['a symlink inside workflows/ to an outside file', 'workflows/link.yaml'],
    ['the name of a symlink inside workflows/ to an outside file', 'link'],
    ['a symlink inside workflows/ to an outside path where nothing is', 'workflows/dangling.yaml'],
    ['a file through a symlinked folder inside workflows/', 'workflows/ext/evil.yaml'],
    ['a missing file through a symlinked folder inside workflows/', 'workflows/ext/missing.yaml'],
    ['a file inside the project but not under workflows/', 'docs/evil.yaml'],
  ];
}

/** The one refusal of a workflow reference that is not a built-in or a file under the project's workflows/. */
export function outsideRefusal(reference: string): string {
  return `workflow ${JSON.stringify(reference)} is not a workflow of this project: name a built-in (chain_of_thought, feature-dev) or a YAML file under workflows/ that stays inside the project; nothing outside the project is read`;
}
