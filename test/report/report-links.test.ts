import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRunToGit } from '../../src/git/index.js';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { readRunReport, renderRunReportPage } from '../../src/report/index.js';
import { traceIdOfRun } from '../../src/telemetry/index.js';
import { runCli } from '../helpers/run-cli.js';

// The report links a run to where else it can be seen (issue 27): its trace id, and its commits on swarm/run-<id>
// once `export git` wrote them (the real git binary).

let root = '';
let project = '';
let runId = '';

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-report-links-'));
  project = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', project, '--json'], { cwd: root });
  expect(demo.code, demo.stderr).toBe(0);
  runId = (JSON.parse(demo.stdout) as { run_id: string }).run_id;
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the report of a run, linked', () => {
  it("shows the run's trace id, and no commit before an export", async () => {
    const report = await readRunReport(project, runId, { gitRepo: path.join(root, 'none.git') });
    expect(report.links).toEqual({ traceId: traceIdOfRun(runId), liveTraceIds: [], commits: [] });
    const page = await renderRunReportPage(report);
    expect(page).toContain(`<code id="trace-id">${traceIdOfRun(runId)}</code>`);
    expect(page).toContain(`artifact-ingest export git ${runId}`);
  });

  it('lists the commits of swarm/run-<id> after export git, as the CLI report does with git.repo', async () => {
    const repo = path.join(root, 'runs.git');
    const exported = await exportRunToGit(project, runId, { repo, projectDir: project });
    expect(exported.commits.length).toBeGreaterThan(2);

    const report = await readRunReport(project, runId, { gitRepo: repo });
    expect(report.links.commits.map((commit) => commit.commit)).toEqual(
      exported.commits.map((commit) => commit.commit),
    );
    expect(report.links.commits.map((commit) => commit.taskId)).toEqual(
      exported.commits.map((commit) => commit.taskId),
    );
    const page = await renderRunReportPage(report);
    for (const commit of exported.commits) expect(page).toContain(commit.commit.slice(0, 12));
    expect(page).toContain(`swarm/run-${runId}`);

    // The CLI reads git.repo from the config; a config it cannot read still gives the report, without commits.
    const configPath = path.join(project, PROJECT_CONFIG_FILE);
    const config = await readFile(configPath, 'utf8');
    await writeFile(configPath, `${config}git:\n  repo: ../runs.git\n`);
    const commitsOf = async (): Promise<string[]> => {
      const json = await runCli(['report', runId, '--json'], { cwd: project });
      expect(json.code, json.stderr).toBe(0);
      return (JSON.parse(json.stdout) as { links: { commits: { commit: string }[] } }).links.commits.map(
        (commit) => commit.commit,
      );
    };
    expect(await commitsOf()).toEqual(exported.commits.map((commit) => commit.commit));
    await writeFile(configPath, `${config}git:\n  repo: [not, a, folder]\n`);
    expect(await commitsOf()).toEqual([]);
    await writeFile(configPath, config);
  });
});
