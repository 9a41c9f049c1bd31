/** A child process for kill -9 tests: records interleaved runs into the project given as argv[2] until killed. */
import { recordInterleavedRuns } from './history-project.js';

const project = process.argv[2];
if (project === undefined) throw new Error('usage: record-forever.ts PROJECT');
for (let round = 0; ; round++) {
  await recordInterleavedRuns(project, {
    runs: 4,
    steps: 6,
    files: 12,
    pool: 40,
    prefix: round === 0 ? 'kill' : `kill${String(round)}`,
    startAt: new Date(Date.parse('2026-05-01T00:00:00.000Z') + round * 60_000).toISOString(),
  });
}
