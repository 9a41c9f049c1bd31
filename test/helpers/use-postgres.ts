import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeEach, describe, inject } from 'vitest';
import { withoutPassword } from './postgres-server.js';
import type { PostgresAvailability } from './postgres-server.js';

/**
 * PostgreSQL for a test file (the server comes from test/helpers/postgres-server.ts). The one idiom:
 *
 * ```ts
 * describeWithPostgres('the catalog store', (postgres) => {
 *   let url = '';
 *   beforeAll(async () => {
 *     url = await postgres.createDatabase();
 *   });
 *   it('...', async () => {
 *     const pool = new pg.Pool({ connectionString: url });
 *     // ...
 *     await pool.end();
 *   });
 * });
 * ```
 *
 * Each `createDatabase()` is a fresh, empty database of the run's server, so two test files never see each
 * other's tables; it is dropped when the suite ends (close every pool and client on it first: a database still in
 * use fails the suite, naming it). Without a server, the suite's tests are skipped with one line on stderr naming
 * what is missing (`postgres tests skipped: no initdb/pg_ctl found (apt-get install postgresql)`); with
 * `CI=true` they fail with that reason instead, so CI cannot lose them silently.
 */

/** A PostgreSQL server for one test suite. */
export interface TestPostgres {
  /** The server's `postgres` database, as a role that may create databases. */
  readonly url: string;
  /** Creates a fresh, empty database on the server, dropped after the suite; returns its URL. */
  createDatabase(): Promise<string>;
}

/** What a test file does about PostgreSQL: run against it, skip with a note, or fail with a reason. */
export type UsePostgres =
  | {
      readonly kind: 'run';
      readonly postgres: TestPostgres;
      /** Drops the databases it created, once their sessions end (at most `waitMs`, default 5 s); throws naming any left. */
      dropDatabases(waitMs?: number): Promise<void>;
    }
  | { readonly kind: 'skip'; readonly note: string }
  | { readonly kind: 'fail'; readonly reason: string };

let databaseCount = 0;

/**
 * The run's PostgreSQL (what the globalSetup provided), or why there is none: a skip outside CI, a failure under
 * `CI=true`. `describeWithPostgres` is the idiom built on it.
 */
export function usePostgres(): UsePostgres {
  return postgresForSuite(inject('postgres'), process.env);
}

/** What `usePostgres` decides, from what the run provided (undefined: nothing) and the environment. */
export function postgresForSuite(
  availability: PostgresAvailability | undefined,
  env: NodeJS.ProcessEnv,
): UsePostgres {
  if (availability?.kind !== 'available') {
    const reason =
      availability?.reason ??
      'no PostgreSQL was provided to this run (vitest.config.ts starts one in its globalSetup, test/setup/postgres.ts)';
    return env['CI'] === 'true'
      ? { kind: 'fail', reason: `postgres tests failed: ${reason}` }
      : { kind: 'skip', note: `postgres tests skipped: ${reason}` };
  }
  const created: string[] = [];
  const adminUrl = databaseUrl(availability.url, undefined);
  return {
    kind: 'run',
    postgres: {
      url: adminUrl,
      async createDatabase() {
        databaseCount += 1;
        const name = `ai_test_${process.pid}_${databaseCount}_${randomBytes(3).toString('hex')}`;
        await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
        created.push(name);
        return databaseUrl(availability.url, name);
      },
    },
    async dropDatabases(waitMs = 5000) {
      const inUse: string[] = [];
      const failed: string[] = [];
      await withClient(adminUrl, async (client) => {
        for (const name of [...created]) {
          const sessions = await sessionsAfterWaiting(client, name, waitMs);
          if (sessions > 0) {
            inUse.push(`${name} (${sessions} session${sessions === 1 ? '' : 's'} still connected)`);
            continue;
          }
          try {
            await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}`);
            created.splice(created.indexOf(name), 1);
          } catch (error) {
            failed.push(`${name} (${describePgError(error)})`);
          }
        }
      });
      if (inUse.length + failed.length > 0)
        throw new Error(
          `could not drop the test database ${[...inUse, ...failed].join(', ')} on ${withoutPassword(adminUrl)}` +
            (inUse.length > 0 ? ': close every pg Pool and Client on it before the suite ends' : ''),
        );
    },
  };
}

/**
 * A `describe` whose tests run against the run's PostgreSQL (`body` receives it), are skipped with one line on
 * stderr when there is none, or fail under `CI=true`. Databases the suite created are dropped after it.
 */
export function describeWithPostgres(name: string, body: (postgres: TestPostgres) => void): void {
  const use = usePostgres();
  switch (use.kind) {
    case 'run':
      describe(name, () => {
        afterAll(() => use.dropDatabases());
        body(use.postgres);
      });
      return;
    case 'skip':
      process.stderr.write(`${use.note}\n`);
      describe.skip(name, () => {
        body(unavailable(use.note));
      });
      return;
    case 'fail':
      describe(name, () => {
        // Each test fails with the reason (a failing beforeAll would report them as skipped).
        beforeEach(() => {
          throw new Error(use.reason);
        });
        body(unavailable(use.reason));
      });
      return;
  }
}

/** The server URL with `database` in its path (the `postgres` database when undefined); query parameters kept. */
function databaseUrl(serverUrl: string, database: string | undefined): string {
  const url = new URL(serverUrl);
  if (database !== undefined) url.pathname = `/${encodeURIComponent(database)}`;
  else if (url.pathname === '' || url.pathname === '/') url.pathname = '/postgres';
  return url.toString();
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The sessions other than `client`'s connected to `database`, polled until none or `waitMs` has passed. */
async function sessionsAfterWaiting(client: pg.Client, database: string, waitMs: number): Promise<number> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { rows } = await client.query<{ sessions: number }>(
      'SELECT count(*)::int AS sessions FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    const sessions = rows[0]?.sessions ?? 0;
    // A pool's end() returns before the server has ended its sessions: give them a moment.
    if (sessions === 0 || Date.now() >= deadline) return sessions;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function describePgError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const detail = 'detail' in error && typeof error.detail === 'string' ? ` ${error.detail}` : '';
  return `${error.message}.${detail}`;
}

// What a skipped or failing suite's body receives: its tests never run, so nothing of it is used.
function unavailable(reason: string): TestPostgres {
  return {
    url: '',
    createDatabase: () => Promise.reject(new Error(reason)),
  };
}
