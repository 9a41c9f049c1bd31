import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/run-cli.js';
import type { CliResult } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

// One secret of every family of the corpus (test/project/find-secret-corpus.test.ts), assembled at run time so
// scanners do not flag this file. `value` is what must never appear: for a key=value pair, the value.
const j = (...parts: string[]): string => parts.join('');
const SECRETS: readonly { readonly family: string; readonly text: string; readonly value: string }[] = [
  ['GitHub ghp_', j('ghp_', 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR')],
  ['GitHub gho_', j('gho_', 'a7vvVardzVF6jSOnwEWA89Tp4Lb2hio1jxAs')],
  ['GitHub fine-grained PAT', j('github_pat_', '11ABCDEFG0aBcDeFgHiJkLmN_oPqRsTuVwXyZ0123456789aBcDeF')],
  ['GitLab PAT', j('glpat-', 'xR4nd0mT0k3nV4lu3zZq')],
  ['Slack token', j('xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx')],
  ['AWS access key id', j('AKIA', 'IOSFODNN7EXAMPL3')],
  ['AWS secret access key', j('wJalrXUtnFEMI/K7MDENG', '/bPxRfiCYEXAMPLEKEY1')],
  ['GCP API key', j('AIza', 'SyD3m0K3yV4lu3f0rT3st1ngPurp0s3sX')],
  [
    'Azure AccountKey= pair',
    j('AccountKey=', 'Zm9vYmFyYmF6cXV4', 'Q29ycmVjdEhvcnNlQmF0dGVyeVN0YXBsZQ9x', '=='),
  ],
  ['OpenAI project key', j('sk-proj-', 'GSvyoRClmTEEBHSFSdttcFg_1MXrqCiPYdnpzz')],
  ['OpenAI legacy key', j('sk-', 'DYJLm42l5HobNDZ6OQe0', 'T3BlbkFJ', 'lbeQC9XnQ5Hma7CdN2KF')],
  ['Anthropic key', j('sk-ant-', 'api03-I6Zi4Q5LiXg6jh-o-Q6wG4jUjjZGi8Igj')],
  ['Stripe secret key', j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
  ['Stripe restricted key', j('rk_test_', '9fG39HqLyjWDarjtT1zdpQ2x')],
  ['npm token', j('npm_', 'aB3dEfGh1jKlMn0pQrStUvWxYz0123456789')],
  ['JWT', j('eyJ', 'hbGciOiJIUzI1NiJ9', '.eyJ', 'zdWIiOiIxMjM0In0', '.c2lnbmF0dXJlU2ln')],
  ['password= pair', j('password', '=hunter2Hunter9x')],
  ['PASSWORD_x= pair', j('DB_PASSWORD', '_PRD=S3cr3tValue99')],
  ['token= pair', j('tok', 'en=abc123def456ghi')],
  ['api_key: pair', j('api_key: ', '"Qx7-ApiKeyValue-2026zz"')],
].map(([family = '', text = '']) => {
  const pair = /^[^=:]*[=:]\s*"?([^"]+)"?$/.exec(text);
  return { family, text, value: pair?.[1] ?? text };
});

const secret = (family: string): string => {
  const found = SECRETS.find((entry) => entry.family === family);
  if (found === undefined) throw new Error(`no secret of family ${family}`);
  return found.text;
};

// Families that are one token (no '=', ':', '/' or space), so they can stand in a file or document name.
const NAME_SAFE = SECRETS.filter(({ text }) => /^[A-Za-z0-9_.-]+$/.test(text));

const NODE = JSON.stringify(process.execPath);

/** A command agent that writes a reply with a file= block of every name-safe secret, and one of plain content. */
const WRITER = `let prompt = '';
process.stdin.on('data', (chunk) => (prompt += chunk)).on('end', () => {
  const names = ${JSON.stringify(NAME_SAFE.map(({ text }) => text))};
  const blocks = names.map((name) => '\`\`\`txt file=keys/cfg_' + name + '.txt\\nx\\n\`\`\`\\n').join('\\n');
  process.stdout.write('# Reply\\n\\n' + blocks + '\\n\`\`\`md file=notes/prompt.md\\n' + prompt + '\\n\`\`\`\\n');
});
`;

/** A command agent that fails, printing every secret on stderr. */
const FAILER = `process.stdin.resume();
process.stderr.write(${JSON.stringify(SECRETS.map(({ text }) => `leaked ${text}`).join('\n'))} + '\\n');
process.exit(3);
`;

const GRAPH = `name: leaky
version: "1"
description: "a graph whose texts hold ${secret('password= pair')}"
inputs: [name]
nodes:
  - { id: write, type: agent_task, agent: writer, prompt: "use ${secret('GitHub ghp_')} and ${secret('token= pair')}", output_path: "docs/write.md" }
  - { id: fail, type: agent_task, agent: failer, prompt: "go", output_path: "docs/fail.md" }
  - { id: named, type: write_file, content: "x", output_path: "docs/{name}.md" }
`;

const BAD_GRAPH = `name: bad
version: "1"
description: a node id that holds a secret
nodes:
  - { id: "n-${secret('GitHub gho_')}", type: write_file, content: "x", output_path: "docs/n.md" }
`;

/** A document whose file= paths hold every name-safe secret, after '_', '-', '.' and as a directory. */
function plan(): string {
  const blocks = NAME_SAFE.map(({ text }, index) => {
    const shapes = [`cfg_${text}.txt`, `k-${text}/a.txt`, `env.${text}`, `${text}/b.txt`];
    return fileBlock('txt', shapes[index % shapes.length] ?? '', 'x');
  });
  return ['# Plan\n', ...blocks, fileBlock('md', 'notes/ok.md', `content keeps ${secret('JWT')}`)].join('\n');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('no secret in records or output (docs/security.md, "Secrets")', () => {
  // Places searched: stdout and stderr of 11 CLI invocations (22 streams), every file under .agent/ except
  // content objects whose bytes are a workspace file or a document, and every file name in the project; for
  // each of the 20 secrets (one per family of the corpus).
  it('leaks none of 20 secrets through ingest, run, show, replay, log, verify or any .agent/ record', async () => {
    const projectDir = await tempProject({
      'artifact-ingest.config.yaml': `ingest: { enabled: true }\nagents:\n  writer: { kind: command, command: [${NODE}, writer.cjs], timeout_ms: 30000 }\n  failer: { kind: command, command: [${NODE}, failer.cjs], timeout_ms: 30000 }\n`,
      'writer.cjs': WRITER,
      'failer.cjs': FAILER,
      'graphs/leaky.yaml': GRAPH,
      'graphs/bad.yaml': BAD_GRAPH,
      'docs/plan.md': plan(),
      [`docs/run_${secret('GitHub ghp_')}.md`]: fileBlock('txt', 'never.txt', 'x'),
      [`docs/${secret('password= pair')}.md`]: fileBlock('txt', 'never-either.txt', 'x'),
    });
    const cli = (args: readonly string[]): Promise<CliResult> => spawnCli([...args, '--project', projectDir]);

    const results: CliResult[] = [];
    const ingest = await cli(['ingest', '--run-id', 'ing']);
    results.push(ingest);
    expect(ingest.code).toBe(0);
    results.push(await cli(['ingest', 'docs/plan.md', '--run-id', 'ing', '--json']));
    const badNode = await cli(['ingest', 'docs/plan.md', '--node-id', `n_${secret('npm token')}`]);
    results.push(badNode);
    expect(badNode.code).toBe(2);
    expect(badNode.stderr).toMatch(/--node-id .* holds what looks like a credential/);
    const badRun = await cli(['ingest', 'docs/plan.md', '--run-id', `r-${secret('Stripe secret key')}`]);
    results.push(badRun);
    expect(badRun.code).toBe(2);

    const run = await cli([
      'run',
      path.join(projectDir, 'graphs/leaky.yaml'),
      '--run-id',
      'g1',
      '--input',
      `name=${secret('GitLab PAT')}`,
    ]);
    results.push(run);
    expect(run.code, run.stderr).toBe(1);
    const badGraph = await cli(['run', path.join(projectDir, 'graphs/bad.yaml'), '--run-id', 'g2']);
    results.push(badGraph);
    expect(badGraph.code).toBe(2);
    for (const args of [
      ['show', 'g1'],
      ['replay', 'g1'],
      ['replay', 'ing'],
      ['log', 'workspace/notes/ok.md'],
      ['verify'],
    ]) {
      results.push(await cli(args));
    }
    expect(results).toHaveLength(11);

    // The refusals happened: no secret path was written, the secret documents left no manifest.
    const manifests = await readdir(path.join(projectDir, '.agent/runs/ing/manifests'));
    expect(manifests.sort()).toEqual(['plan.json']);
    const manifest = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/ing/manifests/plan.json'), 'utf8'),
    ) as { artifacts: { status: string; reason: string; workspace_path: string }[] };
    const refused = manifest.artifacts.filter((entry) => entry.reason.startsWith('secret_in_path'));
    expect(refused).toHaveLength(NAME_SAFE.length);
    expect(refused.every((entry) => entry.status === 'rejected' && entry.workspace_path === '')).toBe(true);
    expect(ingest.stderr).toContain('secret_in_path');
    const state = await readFile(path.join(projectDir, '.agent/runs/g1/state.json'), 'utf8');
    expect(state).toContain('[REDACTED]');
    expect(run.stdout + run.stderr).toMatch(/exit_status|exited/);

    // Content objects: the bytes of a workspace file or a document are the artifact itself, stored as written.
    const contentHashes = new Set<string>();
    for (const file of [
      ...(await filesUnder(path.join(projectDir, 'workspace'))),
      ...(await filesUnder(path.join(projectDir, 'docs'))),
    ]) {
      contentHashes.add(sha256(await readFile(file)));
    }
    const recorded: { name: string; text: string }[] = [];
    for (const file of await filesUnder(path.join(projectDir, '.agent'))) {
      const bytes = await readFile(file);
      const isObject = file.includes(`${path.sep}objects${path.sep}`);
      if (isObject && contentHashes.has(sha256(bytes))) continue;
      recorded.push({ name: path.relative(projectDir, file), text: bytes.toString('utf8') });
    }
    const names = (await filesUnder(projectDir)).map((file) => path.relative(projectDir, file));
    const places = [
      ...results.flatMap((result, index) => [
        { name: `stdout of invocation ${String(index)}`, text: result.stdout },
        { name: `stderr of invocation ${String(index)}`, text: result.stderr },
      ]),
      ...recorded,
      {
        name: 'file names outside docs/',
        text: names.filter((name) => !name.startsWith(`docs${path.sep}`)).join('\n'),
      },
    ];
    expect(recorded.length).toBeGreaterThan(10);

    const hits = places.flatMap((place) =>
      SECRETS.filter(({ value }) => place.text.includes(value)).map(
        ({ family }) => `${family} in ${place.name}`,
      ),
    );
    expect(hits).toEqual([]);
  });
});
