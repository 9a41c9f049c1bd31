import { describe, expect, it } from 'vitest';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

// Passwords no redaction pattern knows, so only the loader's own wording keeps them out of the output.
const PG_SECRET = 'Tr0ub4dor-zq-unseen';
const AWS_SECRET = 'zqUnseenSecretKeyValue';

const REMOTE = [
  'remote:',
  '  project: acme/web',
  `  catalog: postgres://lineage:${PG_SECRET}@db.internal:5432/lineage?sslmode=require`,
  '  objects: s3://artifacts/ai',
  '  s3:',
  `    secret_access_key: ${AWS_SECRET}`,
  '',
].join('\n');

describe('a credential in the remote: section, through the built CLI', () => {
  it.each([
    ['ingest', ['ingest']],
    ['ingest --json', ['ingest', '--json']],
    ['run single', ['run', 'single']],
  ])('makes %s exit 2 naming where each credential goes, showing neither', async (_name, args) => {
    const dir = await tempProject({ [PROJECT_CONFIG_FILE]: REMOTE, 'docs/a.md': '# a\n' });
    const result = await spawnCli([...args, '--project', dir]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('invalid configuration (2 problems):');
    expect(result.stderr).toContain(
      `${PROJECT_CONFIG_FILE}:3:12: remote.catalog: holds a password; never write it in the config file: remove it from the URL and set PGPASSWORD (or a password file named by PGPASSFILE) in the environment`,
    );
    expect(result.stderr).toContain(
      `${PROJECT_CONFIG_FILE}:6:5: remote.s3: "secret_access_key" is a credential; never write one in the config file: remove it and set AWS_SECRET_ACCESS_KEY in the environment`,
    );
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toContain(PG_SECRET);
      expect(output).not.toContain(AWS_SECRET);
      // Not even redacted: the values are never quoted at all.
      expect(output).not.toContain('[REDACTED]');
    }
    if (args.includes('--json')) {
      const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_config');
      expect(error.message).toContain('set AWS_SECRET_ACCESS_KEY');
    } else {
      expect(result.stdout).toBe('');
    }
  });

  it('loads a remote: section with no credential in it, so the command runs', async () => {
    const clean = REMOTE.replace(`:${PG_SECRET}@`, '@').replace(/ {2}s3:\n.*\n/, '');
    const dir = await tempProject({ [PROJECT_CONFIG_FILE]: clean, 'docs/a.md': '# a\n' });
    const result = await spawnCli(['ingest', '--dry-run', '--project', dir]);
    expect(result.code, result.stderr).toBe(0);
  });
});
