import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, appendFile, chown, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { copyFromTemplate, keepAsTemplate } from './postgres-template.js';
import { closedPort } from './stub-http-server.js';

/**
 * A real PostgreSQL for the tests (issue 26). Where it comes from, in this order:
 * - `ARTIFACT_INGEST_TEST_POSTGRES_URL`: a server someone started (`.ci/run` does), the URL of a role that may
 *   create databases; no database needed in it.
 * - Else one server per vitest run, started by the globalSetup `test/setup/postgres.ts` from Debian's binaries
 *   (`initdb` and `pg_ctl` on PATH or under `/usr/lib/postgresql/<version>/bin`): a temp folder, 127.0.0.1 on a free
 *   port, its unix socket in that folder, fsync off, run as the `postgres` user when the tests run as root. It is
 *   stopped and its folder removed when the run ends, and by a watchdog when the run dies without its teardown.
 * Test files reach it through `describeWithPostgres` (test/helpers/use-postgres.ts), which gives each of them
 * fresh databases.
 */

/** What a test run has for PostgreSQL: a server's URL, or why there is none. The globalSetup provides it. */
export type PostgresAvailability =
  | { readonly kind: 'available'; readonly url: string; readonly source: 'environment' | 'started' }
  | { readonly kind: 'missing'; readonly reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresAvailability;
  }
}

/** The environment variable naming a PostgreSQL someone else started. */
export const TEST_POSTGRES_URL_ENV = 'ARTIFACT_INGEST_TEST_POSTGRES_URL';

/** The two programs a test run starts PostgreSQL with. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly pgCtl: string;
}

/** A PostgreSQL this process started: its URL (role `postgres`, no password), its folder, and how to stop it. */
export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  /** The temp folder holding the data directory, the unix socket and the server log. */
  readonly dir: string;
  /** Stops the server (immediate mode: a test server keeps nothing) and removes its folder; later calls wait for that. */
  stop(): Promise<void>;
}

/** Starting PostgreSQL failed; `message` says why, with the last lines of the server's log when there is one. */
export class PostgresStartError extends Error {
  override readonly name = 'PostgresStartError';
}

const execFileAsync = promisify(execFile);
const DEBIAN_ROOT = '/usr/lib/postgresql';
// A test server keeps nothing: no fsync, no durability, only what the tests need.
const SERVER_SETTINGS = {
  listen_addresses: '127.0.0.1',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};
const PORT_ATTEMPTS = 3;
// --no-sync: a test cluster need not survive a crash of the machine.
const INITDB_OPTIONS = [
  '-A',
  'trust',
  '-U',
  'postgres',
  '--no-sync',
  '--no-instructions',
  '-E',
  'UTF8',
  '--locale=C',
];

/**
 * `initdb` and `pg_ctl` from the same folder: the first folder of PATH that has both, else the newest
 * `<debianRoot>/<version>/bin` (Debian does not put them on PATH), else undefined.
 */
export async function findPostgresBinaries(
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = DEBIAN_ROOT,
): Promise<PostgresBinaries | undefined> {
  const pathDirs = (env['PATH'] ?? '').split(path.delimiter).filter((dir) => dir !== '');
  let versions: string[] = [];
  try {
    versions = (await readdir(debianRoot)).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    // No Debian PostgreSQL installed.
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const dir of [...pathDirs, ...versions.map((version) => path.join(debianRoot, version, 'bin'))]) {
    const initdb = path.join(dir, 'initdb');
    const pgCtl = path.join(dir, 'pg_ctl');
    if ((await isExecutable(initdb)) && (await isExecutable(pgCtl))) return { initdb, pgCtl };
  }
  return undefined;
}

/**
 * What this test run has for PostgreSQL: the server of `ARTIFACT_INGEST_TEST_POSTGRES_URL` when it answers, else
 * one started here (returned as `server`, for the caller to stop), else the reason there is none.
 */
export async function providePostgres(
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = DEBIAN_ROOT,
): Promise<{ availability: PostgresAvailability; server: PostgresServer | undefined }> {
  const given = env[TEST_POSTGRES_URL_ENV];
  if (given !== undefined && given !== '') {
    if (!isPostgresUrl(given))
      return {
        availability: {
          kind: 'missing',
          // The value is not echoed: it may hold a password.
          reason: `${TEST_POSTGRES_URL_ENV} is not a postgres:// or postgresql:// URL (e.g. postgresql://postgres@127.0.0.1:5432/)`,
        },
        server: undefined,
      };
    const problem = await checkAnswers(given);
    return {
      availability:
        problem === undefined
          ? { kind: 'available', url: given, source: 'environment' }
          : { kind: 'missing', reason: `${TEST_POSTGRES_URL_ENV} (${withoutPassword(given)}) ${problem}` },
      server: undefined,
    };
  }
  const binaries = await findPostgresBinaries(env, debianRoot);
  if (binaries === undefined)
    return {
      availability: { kind: 'missing', reason: 'no initdb/pg_ctl found (apt-get install postgresql)' },
      server: undefined,
    };
  try {
    const server = await startPostgresServer(binaries);
    return { availability: { kind: 'available', url: server.url, source: 'started' }, server };
  } catch (error) {
    const reason = error instanceof PostgresStartError ? error.message : String(error);
    return {
      availability: { kind: 'missing', reason: `PostgreSQL did not start: ${reason}` },
      server: undefined,
    };
  }
}

/**
 * Starts a PostgreSQL from `binaries` in a new temp folder (data directory copied from a cached `initdb` when one
 * matches these binaries, else made by `initdb -A trust -U postgres --no-sync`), listening on 127.0.0.1 only.
 * A watchdog stops it and removes the folder once `ownerPid` (default: this process) is gone.
 * Throws PostgresStartError naming what failed.
 */
export async function startPostgresServer(
  binaries: PostgresBinaries,
  options: { readonly ownerPid?: number } = {},
): Promise<PostgresServer> {
  const runner = await serverRunner();
  const dir = await mkdtemp(path.join(tmpdir(), 'artifact-ingest-postgres-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'postgres.log');
  const run = (program: string, args: readonly string[]) => {
    const [command = program, ...rest] = [...runner.prefix, program, ...args];
    return execFileAsync(command, rest, { cwd: dir, env: { ...process.env, LC_ALL: 'C' } });
  };
  let watchdog: number | undefined;
  let stopping: Promise<void> | undefined;
  const stopOnce = async () => {
    if (watchdog !== undefined) killQuietly(watchdog);
    try {
      await run(binaries.pgCtl, ['stop', '-D', data, '-m', 'immediate', '-s']);
    } catch {
      // Not running (it never started, or someone stopped it): nothing to stop.
    }
    await rm(dir, { recursive: true, force: true });
  };
  const stop = () => (stopping ??= stopOnce());
  try {
    if (runner.owner !== undefined) await chown(dir, runner.owner.uid, runner.owner.gid);
    const initdb = { initdb: binaries.initdb, options: INITDB_OPTIONS };
    if (!(await copyFromTemplate(initdb, data))) {
      try {
        await run(binaries.initdb, ['-D', data, ...INITDB_OPTIONS]);
      } catch (error) {
        throw new PostgresStartError(`initdb failed: ${commandOutput(error)}`);
      }
      await keepAsTemplate(initdb, data);
    }
    watchdog = startWatchdog(options.ownerPid ?? process.pid, dir, [
      ...runner.prefix,
      binaries.pgCtl,
      'stop',
      '-D',
      data,
      '-m',
      'immediate',
      '-s',
    ]);
    const config = path.join(data, 'postgresql.conf');
    await appendFile(config, settingsText({ ...SERVER_SETTINGS, unix_socket_directories: dir }));
    for (let attempt = 1; ; attempt++) {
      const port = await closedPort();
      // The last `port` line of postgresql.conf wins, so a retry appends another.
      await appendFile(config, settingsText({ port: String(port) }));
      await rm(log, { force: true });
      try {
        await run(binaries.pgCtl, ['start', '-w', '-t', '60', '-D', data, '-l', log, '-s']);
      } catch (error) {
        const logTail = await lastLines(log, 10);
        // Another process may take the free port between its release and the server's bind: try another.
        if (attempt < PORT_ATTEMPTS && /could not bind|Address already in use/i.test(logTail)) continue;
        throw new PostgresStartError(`pg_ctl start failed: ${commandOutput(error)}\n${logTail}`);
      }
      return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, port, dir, stop };
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The URL with any password removed (the userinfo's and a `password` query parameter), for messages. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** How to run the server's programs: as the `postgres` user when this process is root (PostgreSQL refuses root). */
async function serverRunner(): Promise<{
  readonly prefix: readonly string[];
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
}> {
  if (process.getuid?.() !== 0) return { prefix: [], owner: undefined };
  let uid: number;
  let gid: number;
  try {
    uid = Number((await execFileAsync('id', ['-u', 'postgres'])).stdout.trim());
    gid = Number((await execFileAsync('id', ['-g', 'postgres'])).stdout.trim());
  } catch {
    throw new PostgresStartError(
      'running as root and there is no postgres user to run the server as (PostgreSQL refuses root; apt-get install postgresql creates the user)',
    );
  }
  const runuser = await firstExecutable(['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser']);
  if (runuser !== undefined) return { prefix: [runuser, '-u', 'postgres', '--'], owner: { uid, gid } };
  const setpriv = await firstExecutable(['/usr/bin/setpriv', '/bin/setpriv']);
  if (setpriv !== undefined)
    return {
      prefix: [setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'],
      owner: { uid, gid },
    };
  throw new PostgresStartError(
    'running as root and neither runuser nor setpriv found to run the server as postgres',
  );
}

/**
 * A detached shell that waits for `ownerPid` to end, then runs `stopCommand` and removes `dir`: a run killed
 * before its teardown (SIGKILL, a lost terminal) leaves no server behind. Returns its pid.
 */
function startWatchdog(ownerPid: number, dir: string, stopCommand: readonly string[]): number | undefined {
  const script =
    'owner=$1; dir=$2; shift 2; while kill -0 "$owner" 2>/dev/null; do sleep 1; done; "$@" >/dev/null 2>&1; rm -rf "$dir"';
  const child = spawn('/bin/sh', ['-c', script, 'postgres-watchdog', String(ownerPid), dir, ...stopCommand], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid;
}

function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
  } catch {
    return false;
  }
}

async function checkAnswers(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {
    // A connection lost after the check is not the check's business.
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `did not answer: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function settingsText(settings: Record<string, string>): string {
  const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'`);
  return `${lines.join('\n')}\n`;
}

async function lastLines(file: string, count: number): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '(no server log)';
  }
}

function commandOutput(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'stderr' in error && typeof error.stderr === 'string') {
    const stderr = error.stderr.trim();
    if (stderr !== '') return stderr;
  }
  return error instanceof Error ? error.message : String(error);
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function firstExecutable(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
