import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/report/index.js';
import { hostileLinkOpeners } from '../helpers/hostile-markdown.js';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

// A real run (replay agent, ingest on) whose middle node's document is the 120 KB of `[a](` that micromark
// renders in about 11 s; the report's child process renders documents with the default 2 s limit.
const graph = `name: hostile
version: "1"
description: a normal document, a hostile one, then a normal one
inputs: [topic]
nodes:
  - { id: plan, type: agent_task, agent: fast, prompt: "plan {topic}", output_path: "docs/plan.md" }
  - { id: links, type: agent_task, agent: fast, depends_on: [plan], prompt: "links", output_path: "docs/links.md" }
  - { id: notes, type: agent_task, agent: fast, depends_on: [links], prompt: "notes", output_path: "docs/notes.md" }
`;

describe('artifact-ingest report of a run with a document too complex to render', () => {
  it('shows that document as text with the note, renders the other steps, and still writes the page', async () => {
    const hostile = hostileLinkOpeners();
    const project = await tempProject({
      'graphs/hostile.yaml': graph,
      'artifact-ingest.config.yaml':
        'ingest: { enabled: true }\nagents:\n  fast: { kind: replay, dir: replies }\n',
      'replies/plan.md': '# Plan\n\nBuild *it*.\n\n```ts file=src/a.ts\nexport const a = 1;\n```\n',
      'replies/links.md': hostile,
      'replies/notes.md': '# Notes\n\nAll **done**.\n',
    });
    const run = await runCli([
      'run',
      path.join(project, 'graphs/hostile.yaml'),
      '--project',
      project,
      '--input',
      'topic=t',
      '--run-id',
      'h1',
    ]);
    expect(run.code).toBe(0);
    const out = path.join(project, 'out');
    await mkdir(out);
    const report = await spawnCli(['report', 'h1', '--project', project, '-o', 'h1.html'], { cwd: out });
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    const page = await readFile(path.join(out, 'h1.html'), 'utf8');
    expect(page).toContain(
      `<p class="note">Too complex to render within the 2.0 s limit per document; shown as text.</p><pre tabindex="0" class="doc-text">${escapeHtml(hostile)}</pre>`,
    );
    // The steps before and after it are rendered: their headings moved under the page's own.
    expect(page).toContain('<h5>Plan</h5>');
    expect(page).toContain('<h5>Notes</h5>');
    expect(page.match(/<div class="doc">/g)).toHaveLength(2);
  }, 60_000);
});
