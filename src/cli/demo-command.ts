import { cp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { deriveNodeId, defaultCliRunId, runIngest } from '../ingest/index.js';
import type { IngestResult } from '../ingest/index.js';
import { parseCommandArgs } from './parse-command-args.js';
import { renderIngestReport } from './render-ingest-report.js';
import { UsageError } from './usage-error.js';

/** Help text of `artifact-ingest demo`. */
export const DEMO_HELP = `Usage: artifact-ingest demo [--dir DIR] [--json]

Copy the embedded demo documents (fixtures/demo/docs: agent replies with files, a nested
README, a truncated block, hostile paths) into a fresh demo project, ingest them, and
print what was written, skipped and rejected.

Options:
  --dir DIR    demo project to (re)create (default: ./demo); an existing DIR is replaced
               only if an earlier demo created it
  --json       print the manifests as JSON
  -h, --help   show this help
`;

const MARKER = '.artifact-ingest-demo';
const DEMO_DOCS = fileURLToPath(new URL('../../fixtures/demo/docs/', import.meta.url));

/** Runs `artifact-ingest demo`; returns the exit code. */
export async function demoCommand(args: readonly string[]): Promise<number> {
  const { values } = parseCommandArgs('demo', args, {
    dir: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  const projectDir = path.resolve(values.dir ?? 'demo');
  await freshProject(projectDir);
  await cp(DEMO_DOCS, path.join(projectDir, 'docs'), { recursive: true });

  const runId = defaultCliRunId().replace(/^cli-/, 'demo-');
  const documents = (await fg('docs/**/*.md', { cwd: projectDir, onlyFiles: true })).sort();
  const results: IngestResult[] = [];
  for (const docPath of documents) {
    results.push(
      await runIngest({
        projectDir,
        docPath,
        runId,
        nodeId: deriveNodeId(docPath),
        sourceKind: 'cli',
        mode: 'team',
      }),
    );
  }

  if (values.json === true) {
    process.stdout.write(
      `${JSON.stringify(
        results.map((result) => result.manifest),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  process.stdout.write(`Demo project: ${projectDir}\n\n`);
  process.stdout.write(renderIngestReport(results, { runId, dryRun: false }));
  process.stdout.write(
    `\nLook at:\n  ${path.join(projectDir, 'workspace')}  (the extracted files)\n` +
      `  ${path.join(projectDir, '.agent', 'runs', runId)}  (manifests/ and events.jsonl)\n` +
      `Run it again on your own documents: npx artifact-ingest ingest --project ${projectDir}\n`,
  );
  return 0;
}

async function freshProject(projectDir: string): Promise<void> {
  const existing = await stat(projectDir).catch(() => null);
  if (existing !== null) {
    const marked = await stat(path.join(projectDir, MARKER)).catch(() => null);
    if (marked === null) {
      throw new UsageError(
        `${projectDir} exists and was not made by the demo; pass --dir with a new folder`,
        'demo',
      );
    }
    await rm(projectDir, { recursive: true, force: true });
  }
  await mkdir(projectDir, { recursive: true });
  await writeFile(path.join(projectDir, MARKER), 'created by artifact-ingest demo; safe to delete\n');
}
