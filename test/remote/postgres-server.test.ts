import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findPostgresBinaries,
  PostgresStartError,
  providePostgres,
  startPostgresServer,
  TEST_POSTGRES_URL_ENV,
} from '../helpers/postgres-server.js';
import { copyFromTemplate, keepAsTemplate } from '../helpers/postgres-template.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { describeWithPostgres, postgresForSuite } from '../helpers/use-postgres.js';
import type { PostgresAvailability, PostgresServer } from '../helpers/postgres-server.js';

// The harness of test/helpers/postgres-server.ts and use-postgres.ts: where a server comes from, what a test file
// does without one, and that a server it starts is gone afterwards, also when its owner dies.

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let scratch = '';

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'ai-postgres-harness-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A folder under the scratch folder with the given executable (or, for `false`, non-executable) files. */
async function folderWith(name: string, files: Record<string, boolean>): Promise<string> {
  const dir = path.join(scratch, name);
  await mkdir(dir, { recursive: true });
  for (const [file, executable] of Object.entries(files))
    await writeFile(path.join(dir, file), '#!/bin/sh\n', { mode: executable ? 0o755 : 0o644 });
  return dir;
}

describe('findPostgresBinaries', () => {
  it.each([
    {
      name: 'takes the first PATH folder that has both programs',
      path: [
        ['only-initdb', { initdb: true }],
        ['both', { initdb: true, pg_ctl: true }],
      ],
      debian: { '15': { initdb: true, pg_ctl: true } },
      expected: 'both',
    },
    {
      name: 'falls back to the newest Debian version folder',
      path: [['only-pg-ctl', { pg_ctl: true }]],
      debian: {
        '9.6': { initdb: true, pg_ctl: true },
        '13': { initdb: true, pg_ctl: true },
        '15': { initdb: true },
      },
      expected: 'debian/13/bin',
    },
    {
      name: 'ignores files that are not executable',
      path: [['not-executable', { initdb: false, pg_ctl: false }]],
      debian: {},
      expected: undefined,
    },
    { name: 'finds nothing on an empty machine', path: [], debian: {}, expected: undefined },
  ] as const)('$name', async ({ name, path: pathDirs, debian, expected }) => {
    const relative = path.join('find', name.replaceAll(' ', '-'));
    const base = path.join(scratch, relative);
    const dirs: string[] = [];
    for (const [dir, files] of pathDirs) dirs.push(await folderWith(path.join(relative, dir), files));
    for (const [version, files] of Object.entries(debian))
      await folderWith(path.join(relative, 'debian', version, 'bin'), files);
    await mkdir(path.join(base, 'debian'), { recursive: true });
    const found = await findPostgresBinaries({ PATH: dirs.join(path.delimiter) }, path.join(base, 'debian'));
    expect(found).toEqual(
      expected === undefined
        ? undefined
        : { initdb: path.join(base, expected, 'initdb'), pgCtl: path.join(base, expected, 'pg_ctl') },
    );
  });
});

describe('providePostgres', () => {
  it('names what is missing and the package that brings it', async () => {
    const empty = await folderWith('empty', {});
    expect(await providePostgres({ PATH: empty }, empty)).toEqual({
      availability: { kind: 'missing', reason: 'no initdb/pg_ctl found (apt-get install postgresql)' },
      server: undefined,
    });
  });

  it.each(['garbage', 'http://127.0.0.1:5432/', 'postgresql://tester:hunter2-secret@[::1'])(
    `refuses %j in ${TEST_POSTGRES_URL_ENV} without echoing it`,
    async (url) => {
      expect(await providePostgres({ [TEST_POSTGRES_URL_ENV]: url })).toEqual({
        availability: {
          kind: 'missing',
          reason: `${TEST_POSTGRES_URL_ENV} is not a postgres:// or postgresql:// URL (e.g. postgresql://postgres@127.0.0.1:5432/)`,
        },
        server: undefined,
      });
    },
  );

  it(`says ${TEST_POSTGRES_URL_ENV} did not answer, without its password`, async () => {
    const port = await closedPort();
    const { availability, server } = await providePostgres({
      [TEST_POSTGRES_URL_ENV]: `postgresql://tester:hunter2-secret@127.0.0.1:${port}/?sslmode=disable&password=hunter2-query`,
    });
    expect(server).toBeUndefined();
    expect(availability).toEqual({
      kind: 'missing',
      reason: expect.stringMatching(
        new RegExp(
          `^${TEST_POSTGRES_URL_ENV} \\(postgresql://tester@127\\.0\\.0\\.1:${port}/\\?sslmode=disable\\) did not answer: .*ECONNREFUSED`,
        ),
      ) as string,
    });
    expect(JSON.stringify(availability)).not.toContain('hunter2');
  });
});

describe('postgresForSuite (what usePostgres decides)', () => {
  const missing: PostgresAvailability = {
    kind: 'missing',
    reason: 'no initdb/pg_ctl found (apt-get install postgresql)',
  };
  it.each([
    {
      name: 'skips outside CI',
      availability: missing,
      ci: undefined,
      kind: 'skip',
      text: 'postgres tests skipped: no initdb/pg_ctl found (apt-get install postgresql)',
    },
    {
      name: 'skips when CI is not exactly true',
      availability: missing,
      ci: '1',
      kind: 'skip',
      text: 'postgres tests skipped: no initdb/pg_ctl found (apt-get install postgresql)',
    },
    {
      name: 'fails under CI=true',
      availability: missing,
      ci: 'true',
      kind: 'fail',
      text: 'postgres tests failed: no initdb/pg_ctl found (apt-get install postgresql)',
    },
    {
      name: 'names the globalSetup when nothing was provided',
      availability: undefined,
      ci: undefined,
      kind: 'skip',
      text: 'postgres tests skipped: no PostgreSQL was provided to this run (vitest.config.ts starts one in its globalSetup, test/setup/postgres.ts)',
    },
  ] as const)('$name', ({ availability, ci, kind, text }) => {
    const use = postgresForSuite(availability, ci === undefined ? {} : { CI: ci });
    expect(use).toEqual(kind === 'skip' ? { kind, note: text } : { kind, reason: text });
  });

  it('runs against a server that is available, whose URL without a database means the postgres database', () => {
    const use = postgresForSuite(
      { kind: 'available', url: 'postgresql://ci@127.0.0.1:5432/?sslmode=disable', source: 'environment' },
      { CI: 'true' },
    );
    expect(use.kind === 'run' && use.postgres.url).toBe(
      'postgresql://ci@127.0.0.1:5432/postgres?sslmode=disable',
    );
  });
});

describe.concurrent('the skip/fail rule, in a vitest run without a server', () => {
  const runFixture = async (ci: boolean) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [TEST_POSTGRES_URL_ENV]: `postgresql://postgres@127.0.0.1:${await closedPort()}/`,
      NO_COLOR: '1',
    };
    delete env['CI'];
    if (ci) env['CI'] = 'true';
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--config',
          'test/remote/fixtures/postgres-suite.vitest.config.ts',
        ],
        { cwd: ROOT, env },
        (error, stdout, stderr) => {
          resolve({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
            stdout,
            stderr,
          });
        },
      );
    });
  };

  it('skips the suite outside CI, with one line on stderr naming what is missing', async () => {
    const { code, stdout, stderr } = await runFixture(false);
    expect(code).toBe(0);
    const notes = `${stdout}\n${stderr}`.split('\n').filter((line) => line.includes('postgres tests'));
    expect(notes).toEqual([
      expect.stringMatching(
        new RegExp(
          `^postgres tests skipped: ${TEST_POSTGRES_URL_ENV} \\(postgresql://postgres@127\\.0\\.0\\.1:\\d+/\\) did not answer: .*ECONNREFUSED`,
        ),
      ),
    ]);
    expect(stderr).toContain(notes[0]);
    expect(stdout).toMatch(/Tests\s+2 skipped/);
  });

  it('fails the suite under CI=true, with that reason', async () => {
    const { code, stdout, stderr } = await runFixture(true);
    expect(code).toBe(1);
    expect(`${stdout}\n${stderr}`).toMatch(
      /Error: postgres tests failed: ARTIFACT_INGEST_TEST_POSTGRES_URL \(.*\) did not answer/,
    );
    expect(stdout).toMatch(/Tests\s+2 failed/);
    expect(stdout).toMatch(/Test Files\s+1 failed/);
  });
});

describeWithPostgres('a server this process starts', () => {
  const binaries = findPostgresBinaries();
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    return client;
  };

  it('listens on 127.0.0.1 with its socket in its own folder, fsync off, as postgres; stops and leaves nothing', async () => {
    const found = await binaries;
    if (found === undefined) throw new Error('initdb/pg_ctl not found, though the run has a PostgreSQL');
    const server = await startPostgresServer(found);
    try {
      const client = await connect(server.url);
      try {
        const { rows } = await client.query<{ listen: string; fsync: string; owner: string }>(
          "SELECT current_setting('listen_addresses') AS listen, current_setting('fsync') AS fsync, (SELECT rolname FROM pg_roles WHERE oid = 10) AS owner",
        );
        expect(rows).toEqual([{ listen: '127.0.0.1', fsync: 'off', owner: 'postgres' }]);
        await stat(path.join(server.dir, `.s.PGSQL.${server.port}`));
        if (process.getuid?.() === 0) {
          const postgresUid = Number((await execFileAsync('id', ['-u', 'postgres'])).stdout.trim());
          expect((await stat(path.join(server.dir, 'data'))).uid).toBe(postgresUid);
          const pid = (await readFile(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8')).split(
            '\n',
          )[0];
          expect((await stat(`/proc/${pid}`)).uid).toBe(postgresUid);
        }
      } finally {
        await client.end();
      }
      await server.stop();
      await expect(stat(server.dir)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(connect(server.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await server.stop();
    }
  });

  it('is stopped and its folder removed by the watchdog when the process that started it dies', async () => {
    const found = await binaries;
    if (found === undefined) throw new Error('initdb/pg_ctl not found, though the run has a PostgreSQL');
    const owner = spawn('sleep', ['120'], { stdio: 'ignore' });
    let server: PostgresServer | undefined;
    try {
      server = await startPostgresServer(found, { ownerPid: owner.pid! });
      await (await connect(server.url)).end();
      owner.kill('SIGKILL');
      const deadline = Date.now() + 30_000;
      let gone = false;
      while (!gone && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        gone = await stat(server.dir).then(
          () => false,
          () => true,
        );
      }
      expect(gone).toBe(true);
      await expect(connect(server.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      owner.kill('SIGKILL');
      // Only does something when the watchdog failed: the server must not outlive a failing test.
      await server?.stop();
    }
  });
});

describeWithPostgres('a server that does not start', () => {
  /** A program that writes `stderr` and fails for `failing` (its first argument), and succeeds otherwise. */
  const fakeProgram = async (name: string, failing: string, stderr: string) => {
    // The programs run as postgres when the tests run as root: the folder must be reachable by that user.
    await chmod(scratch, 0o755);
    const dir = path.join(scratch, `fake-${name}-${failing}`);
    await mkdir(dir, { recursive: true, mode: 0o755 });
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\nif [ "$1" = "${failing}" ]; then echo "${stderr}" >&2; exit 1; fi\n`, {
      mode: 0o755,
    });
    return file;
  };

  it('names initdb and what it wrote on stderr', async () => {
    const found = await findPostgresBinaries();
    const initdb = await fakeProgram(
      'initdb',
      '-D',
      'initdb: error: could not create directory: No space left on device',
    );
    await expect(startPostgresServer({ initdb, pgCtl: found!.pgCtl })).rejects.toThrow(
      new PostgresStartError(
        'initdb failed: initdb: error: could not create directory: No space left on device',
      ),
    );
  });

  it('names pg_ctl, what it wrote, and the end of the server log (none here)', async () => {
    const found = await findPostgresBinaries();
    const pgCtl = await fakeProgram('pg_ctl', 'start', 'pg_ctl: could not start server');
    await expect(startPostgresServer({ initdb: found!.initdb, pgCtl })).rejects.toThrow(
      new PostgresStartError('pg_ctl start failed: pg_ctl: could not start server\n(no server log)'),
    );
  });
});

describe('the cached initdb', () => {
  const command = async () => ({
    initdb: path.join(await folderWith('fake-bin', { initdb: true }), 'initdb'),
    options: ['-A', 'trust'],
  });
  const dataDir = async (name: string) => {
    const data = path.join(scratch, name, 'data');
    await mkdir(data, { recursive: true, mode: 0o700 });
    await writeFile(path.join(data, 'PG_VERSION'), '15\n');
    return data;
  };

  it('hands a later run an exact copy of what initdb made', async () => {
    const root = path.join(scratch, 'templates');
    const initdb = await command();
    const fresh = await dataDir('first-run');
    expect(await copyFromTemplate(initdb, path.join(scratch, 'before', 'data'), root)).toBe(false);
    await keepAsTemplate(initdb, fresh, root);
    await writeFile(path.join(fresh, 'postgresql.conf'), 'port = 1\n');
    const copy = path.join(scratch, 'second-run', 'data');
    await mkdir(path.dirname(copy), { recursive: true });
    expect(await copyFromTemplate(initdb, copy, root)).toBe(true);
    expect(await readFile(path.join(copy, 'PG_VERSION'), 'utf8')).toBe('15\n');
    await expect(stat(path.join(copy, 'postgresql.conf'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stat(copy)).mode & 0o777).toBe(0o700);
    expect(
      await copyFromTemplate(
        { ...initdb, options: ['-A', 'md5'] },
        path.join(scratch, 'other', 'data'),
        root,
      ),
    ).toBe(false);
  });

  it('uses no cache folder that others may write to', async () => {
    const root = path.join(scratch, 'planted');
    await mkdir(root);
    await chmod(root, 0o777);
    const initdb = await command();
    await keepAsTemplate(initdb, await dataDir('planted-run'), root);
    expect(await copyFromTemplate(initdb, path.join(scratch, 'planted-copy', 'data'), root)).toBe(false);
    await chmod(root, 0o700);
    expect(await copyFromTemplate(initdb, path.join(scratch, 'planted-copy', 'data'), root)).toBe(false);
  });
});
