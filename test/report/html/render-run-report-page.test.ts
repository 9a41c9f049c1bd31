import { afterAll, describe, expect, it } from 'vitest';
import { cspHash } from '../../../src/report/html/page-assets.js';
import { IsolatedMarkdownRenderer, escapeHtml, renderRunReportPage } from '../../../src/report/index.js';
import { hostileLinkOpeners } from '../../helpers/hostile-markdown.js';
import {
  poisonStrings,
  reportFile,
  reportLimits,
  reportStep,
  runReport,
} from '../../helpers/report-fixture.js';
import type { ReportFile } from '../../../src/report/index.js';
import { readRunReport } from '../../../src/report/index.js';
import { REASKED_RUN_ID, reaskedWorkflowRun } from '../../helpers/reasked-workflow-run.js';

const inlineText = (page: string, tag: 'style' | 'script'): string[] =>
  [...page.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1] ?? '');

const renderers: IsolatedMarkdownRenderer[] = [];
afterAll(async () => {
  await Promise.all(renderers.map((renderer) => renderer.close()));
});

describe('renderRunReportPage', () => {
  it('escapes every string of the model, in text and attributes alike', async () => {
    const { poisoned, payloads } = poisonStrings(
      runReport({
        steps: [
          reportStep('plan', {
            contract: {
              type: 'plan',
              state: 'blocked',
              attempts: 2,
              artifact: '.agent/artifacts/run-1/plan.json',
              reason: 'missing field',
              errors: [{ path: 'tasks', expected: 'array', got: 'string', message: 'expected an array' }],
            },
            reconciliation: { unregistered: ['workspace/a.ts'], phantom: ['workspace/b.ts'] },
            error: { code: 'contract_blocked', message: 'gave up' },
          }),
        ],
        run: {
          ...runReport().run,
          terminal: {
            state: 'blocked',
            artifact: 'blocker.json',
            reason: 'no spec',
            at: '2026-01-01T00:00:03Z',
          },
        },
        contracts: [
          {
            type: 'plan',
            path: '.agent/artifacts/run-1/plan.json',
            valid: false,
            errors: [{ path: 'tasks', expected: 'array', got: null, message: 'required' }],
            findings: [{ code: 'non_canonical', message: 'not submitted' }],
            payload: '{"tasks":"x"}',
          },
        ],
        verify: {
          ...runReport().verify!,
          ok: false,
          problems: [{ code: 'hash_mismatch', severity: 'error', message: 'object changed' }],
        },
        limits: reportLimits({ diffsOmitted: 1 }),
        problems: [{ code: 'trace_unreadable', message: 'bad line' }],
      }),
      // A diff's kind picks how it renders; it is a closed union, not text from the run.
      (field) => field.endsWith('.diff.kind'),
    );
    const page = await renderRunReportPage(poisoned);
    expect(page).not.toContain('<b id=');
    // Every field is shown, escaped: micromark and the page escape the same five characters alike.
    const missing = payloads
      .filter(
        ({ payload }) =>
          !page.includes(escapeHtml(payload)) && !page.includes(escapeHtml(payload).replace(/&#39;/g, "'")),
      )
      .map(({ field }) => field);
    // A block's hash is the written file's content hash, shown with the file; markdown is checked below.
    expect(missing).toEqual([
      '.steps[0].document.markdown',
      '.steps[0].blocks[0].sha256',
      '.steps[0].blocks[1].sha256',
    ]);
    // micromark decodes the character reference `&amp;` and encodes it again, so `&` stays single-escaped.
    const markdown = payloads.find(({ field }) => field === '.steps[0].document.markdown');
    expect(page).toContain(
      escapeHtml(markdown?.payload ?? 'missing')
        .replace(/&#39;/g, "'")
        .replace('&amp;amp;', '&amp;'),
    );
  });

  it('says verify was not checked when the model was read with checks: false', async () => {
    const page = await renderRunReportPage(runReport({ verify: null }));
    expect(page).toContain('Not checked for this page');
    expect(page).not.toContain('verify failed');
    expect(page).not.toMatch(/>verified</);
  });

  it('admits exactly its inline style and script by sha256 hash, and nothing else', async () => {
    const page = await renderRunReportPage(runReport());
    const styles = inlineText(page, 'style');
    const scripts = inlineText(page, 'script');
    expect(styles).toHaveLength(1);
    expect(scripts).toHaveLength(1);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
    expect(csp).toBe(
      `default-src 'none'; img-src data:; style-src ${cspHash(styles[0] ?? '')}; script-src ${cspHash(
        scripts[0] ?? '',
      )}; base-uri 'none'; form-action 'none'`.replace(/'/g, '&#39;'),
    );
    // The CSP must precede what it governs.
    expect(page.indexOf('Content-Security-Policy')).toBeLessThan(page.indexOf('<style>'));
    expect(page).not.toMatch(/\sstyle=/);
    expect(page).not.toMatch(/\son[a-z]+=/);
  });

  it('names no http URL and loads nothing: no src, no link element, no external href', async () => {
    const page = await renderRunReportPage(runReport());
    expect(page).not.toMatch(/https?:/i);
    expect(page).not.toMatch(/\ssrc=/);
    expect(page).not.toContain('<link');
    expect(page).toContain('<meta name="generator" content="artifact-ingest report">');
  });

  it('is accessible in its structure: lang, title, landmarks, one h1, labelled controls and SVG', async () => {
    const page = await renderRunReportPage(runReport());
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<title>Run run-1 · artifact-ingest report</title>');
    for (const landmark of ['<header>', '<main>', '<footer>']) expect(page).toContain(landmark);
    expect(page.match(/<h1[ >]/g)).toHaveLength(1);
    expect(page).toContain('<label for="step-filter">');
    expect(page).toMatch(/<svg class="timeline" role="img" aria-label="Timeline of 2 steps in 2 lanes/);
    expect(page).toContain('<th scope="col">Reason</th>');
  });

  it('shows each step: agent, prompt hash, error, document, blocks with reasons, files with diff lines', async () => {
    const page = await renderRunReportPage(runReport());
    expect(page).toContain(
      '<details class="step" id="step-plan" data-status="completed" data-rejected="true">',
    );
    // A failed step starts open, so a reviewer sees it first.
    expect(page).toContain(
      '<details class="step" id="step-build" data-status="failed" data-rejected="false" open>',
    );
    expect(page).toContain('agent builder');
    expect(page).toContain('<code>agent_failed</code>: the agent exited with code 1');
    expect(page).toContain('<h5>plan</h5>');
    expect(page).toContain('<code>traversal</code> file= path contains a &#39;..&#39; segment');
    // A run of added lines is one span: one row per line kind, not per line.
    expect(page).toContain('<span class="a">+export const a = 1;\n+export const b = 2;</span>');
    expect(page).toContain('<span class="h">@@ -0,0 +1,2 @@</span>');
    expect(page).toContain('<span class="m">--- workspace/src/a.ts\n+++ workspace/src/a.ts</span>');
  });

  it('shows a document too complex to render as escaped text with a one-line note, and renders the other steps', async () => {
    const hostile = `<script>window.pwned = 1</script>\n\n${hostileLinkOpeners()}`;
    const report = runReport({
      steps: [
        reportStep('plan'),
        reportStep('links', {
          document: { ...reportStep('links').document!, markdown: hostile, bytes: hostile.length },
        }),
        reportStep('notes'),
      ],
    });
    const renderer = new IsolatedMarkdownRenderer();
    renderers.push(renderer);
    // The page's budget is not what this test is about: on a loaded machine it must not run out first.
    const page = await renderRunReportPage(report, {
      documentTimeLimitMs: 300,
      pageTimeLimitMs: 600_000,
      renderer,
    });
    expect(page).toContain(
      `<p class="note">Too complex to render within the 300 ms limit per document; shown as text.</p><pre tabindex="0" class="doc-text">${escapeHtml(hostile)}</pre>`,
    );
    expect(page).not.toContain('<script>window.pwned');
    expect(page).toContain('<h5>plan</h5>');
    expect(page).toContain('<h5>notes</h5>');
    expect(page.match(/<div class="doc">/g)).toHaveLength(2);
    expect(renderer.workersStarted).toBe(2);
  });

  it('says a step that never started is not started, instead of a duration and lane', async () => {
    const skipped = reportStep('fix', {
      status: 'skipped',
      agent: null,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      blocks: [],
      files: [],
      document: null,
    });
    const page = await renderRunReportPage(runReport({ steps: [skipped] }));
    expect(page).toContain('<span class="meta">node · no agent · not started · 0 blocks · 0 files</span>');
  });

  it("shows a block's reason once when the manifest's reason line starts with its code", async () => {
    const step = reportStep('s');
    const blocks = step.blocks.map((block) =>
      block.code === '' ? block : { ...block, reason: `${block.code}: ${block.reason}` },
    );
    const page = await renderRunReportPage(runReport({ steps: [{ ...step, blocks }] }));
    expect(page).toContain('<td><code>traversal</code> file= path contains a &#39;..&#39; segment');
  });

  it('colors removed and context lines of a changed file, and says when a diff was cut', async () => {
    const file = reportFile('workspace/a.ts', {
      change: 'changed',
      diff: {
        kind: 'text',
        patch: '@@ -1,2 +1,2 @@\n keep\n-old\n+new\n\\ No newline at end of file\n',
        truncated: true,
      },
    });
    const page = await renderRunReportPage(runReport({ steps: [reportStep('s', { files: [file] })] }));
    expect(page).toContain(
      '<span class="c"> keep</span><span class="d">-old</span><span class="a">+new</span>',
    );
    expect(page).toContain('<span class="m">\\ No newline at end of file</span>');
    expect(page).toContain("Diff cut at the report's line limit.");
  });

  it('shows the caps and what they left out, with the replay command for the rest', async () => {
    const omitted: ReportFile = reportFile('workspace/big.ts', {
      diff: {
        kind: 'omitted',
        message: 'Diff left out for the report size.',
        command: 'artifact-ingest replay run-1 --backward --path workspace/big.ts',
      },
    });
    const page = await renderRunReportPage(
      runReport({
        steps: [
          reportStep('s', { files: [omitted], document: { ...reportStep('s').document!, truncated: true } }),
        ],
        limits: reportLimits({
          diffsOmitted: 7,
          diffsTruncated: 2,
          documentsTruncated: 1,
          documentsOmitted: 3,
        }),
      }),
    );
    expect(page).toContain(
      '<strong>7 diffs omitted, 2 diffs cut, 3 documents omitted, 1 document cut</strong>',
    );
    expect(page).toContain('diffs cut at 400 lines');
    expect(page).toContain('<code>artifact-ingest replay run-1 --backward</code>');
    expect(page).toContain('<code>artifact-ingest replay run-1 --backward --path workspace/big.ts</code>');
    // A message that names the command already gets it set in code, not repeated.
    const named = await renderRunReportPage(
      runReport({
        steps: [
          reportStep('s', {
            files: [
              reportFile('workspace/x.ts', {
                diff: {
                  kind: 'omitted',
                  message: 'diff left out; run replay --path x',
                  command: 'replay --path x',
                },
              }),
            ],
          }),
        ],
      }),
    );
    expect(named).toContain('<p class="note">diff left out; run <code>replay --path x</code></p>');
    expect(page).toContain("The document is cut at the report's limit.");
  });

  it('shows the header: definition hash, mode, terminal state, duration, budgets, concurrency', async () => {
    const page = await renderRunReportPage(
      runReport({
        run: {
          ...runReport().run,
          terminal: {
            state: 'done',
            artifact: '.agent/artifacts/run-1/done.json',
            reason: 'all good',
            at: 'T',
          },
        },
      }),
    );
    expect(page).toContain(`team · sha256 <code>${'a'.repeat(64)}</code> · built-in`);
    expect(page).toContain('<dt>Mode</dt><dd>team</dd>');
    expect(page).toContain('<span class="badge s-done">done</span> all good');
    expect(page).toContain('<dt>Duration</dt><dd>3.0 s</dd>');
    expect(page).toContain('2 of 10 agent calls');
    expect(page).toContain('<dt>Concurrency</dt><dd>2</dd>');
    expect(page).toContain('<span class="badge s-ok">verified</span> 0 errors, 0 warnings');
  });

  it('shows a step contract with field errors, the reconciliation, and the run contracts with audit findings', async () => {
    const page = await renderRunReportPage(
      runReport({
        steps: [
          reportStep('review', {
            kind: 'step',
            contract: {
              type: 'review',
              state: 'fix_needed',
              attempts: 2,
              artifact: null,
              reason: 'a field is wrong',
              errors: [
                { path: 'verdict', expected: 'approve | reject', got: 'maybe', message: 'invalid enum' },
              ],
            },
            reconciliation: { unregistered: ['workspace/x.ts'], phantom: [] },
          }),
        ],
        contracts: [
          {
            type: 'review',
            path: '.agent/artifacts/run-1/review.json',
            valid: true,
            errors: [],
            findings: [{ code: 'modified', message: 'changed since submit' }],
            payload: '{"verdict":"approve"}',
          },
        ],
      }),
    );
    expect(page).toContain('<span class="badge s-fix_needed">fix_needed</span> after 2 attempts');
    expect(page).toContain(
      '<td><code>verdict</code></td><td>approve | reject</td><td>maybe</td><td>invalid enum</td>',
    );
    expect(page).toContain('Changed but not registered:</p><ul><li><code>workspace/x.ts</code></li></ul>');
    expect(page).toContain('<li><code>modified</code>: changed since submit</li>');
    expect(page).toContain('<pre tabindex="0">{&quot;verdict&quot;:&quot;approve&quot;}</pre>');
  });

  it('draws a fix re-ask of a real workflow run after its first attempt in one lane, and says the ingest was on', async () => {
    const project = await reaskedWorkflowRun({ ingest: true });
    const page = await renderRunReportPage(await readRunReport(project, REASKED_RUN_ID));
    expect(page).toContain('<dt>Ingest</dt><dd>on</dd>');
    expect(page).toMatch(/<svg class="timeline" role="img" aria-label="Timeline of 3 steps in 1 lane /);
    const bar = (key: string): { x: number; y: number; width: number } => {
      const match = new RegExp(
        `<title>${key}: [^<]*</title><rect class="[^"]*" x="([\\d.]+)" y="(\\d+)" width="([\\d.]+)"`,
      ).exec(page);
      if (match === null) throw new Error(`no timeline bar for ${key}`);
      return { x: Number(match[1]), y: Number(match[2]), width: Number(match[3]) };
    };
    const first = bar('develop');
    const reask = bar('develop#2');
    expect(reask.y).toBe(first.y);
    expect(reask.x).toBeCloseTo(first.x + first.width, 0);
  });
});
