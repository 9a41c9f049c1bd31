import { providePostgres } from '../helpers/postgres-server.js';
import type { TestProject } from 'vitest/node';

/**
 * globalSetup: one PostgreSQL per vitest run (test/helpers/postgres-server.ts), provided to the test files as
 * `inject('postgres')`: its URL, or the reason there is none. Stopped, and its folder removed, when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { availability, server } = await providePostgres();
  project.provide('postgres', availability);
  return async () => {
    await server?.stop();
  };
}
