import { describe, expect, it } from 'vitest';
import { MAX_TIMELINE_BARS } from '../../../src/report/html/render-timeline.js';
import { renderRunReportPage } from '../../../src/report/index.js';
import { reportFile, reportLimits, reportStep, runReport } from '../../helpers/report-fixture.js';
import type { ReportFile, ReportStep } from '../../../src/report/index.js';

describe('renderRunReportPage on large runs', () => {
  it('draws at most the timeline cap and says how many it left out', async () => {
    const steps: ReportStep[] = Array.from({ length: MAX_TIMELINE_BARS + 5 }, (_step, index) =>
      reportStep(`n${index}`, { lane: index % 3, blocks: [], files: [], document: null }),
    );
    const page = await renderRunReportPage(runReport({ steps }));
    expect(page.match(/<rect /g)).toHaveLength(MAX_TIMELINE_BARS);
    expect(page).toContain(`draws the first ${MAX_TIMELINE_BARS} of ${MAX_TIMELINE_BARS + 5} steps`);
    expect(page.match(/<details class="step"/g)).toHaveLength(MAX_TIMELINE_BARS + 5);
  });

  it('renders a 10,000-file run under 10 MB with diffs carried up to the byte cap and the rest omitted', async () => {
    const limits = reportLimits();
    let diffBytes = 0;
    let omitted = 0;
    const patch = `@@ -1,20 +1,20 @@\n${Array.from({ length: 20 }, (_line, index) => `-const line${index} = ${index};\n+const line${index} = ${index + 1};\n`).join('')}`;
    const steps = Array.from({ length: 100 }, (_step, stepIndex) =>
      reportStep(`node-${stepIndex}`, {
        lane: stepIndex % 4,
        files: Array.from({ length: 100 }, (_file, fileIndex): ReportFile => {
          const path = `workspace/src/module-${stepIndex}/file-${fileIndex}.ts`;
          if (diffBytes + patch.length > limits.maxDiffBytesTotal) {
            omitted++;
            return reportFile(path, {
              diff: {
                kind: 'omitted',
                message: 'Diff left out for the report size.',
                command: `artifact-ingest replay run-1 --backward --path ${path}`,
              },
            });
          }
          diffBytes += patch.length;
          return reportFile(path, { diff: { kind: 'text', patch, truncated: false } });
        }),
      }),
    );
    const page = await renderRunReportPage(
      runReport({ steps, limits: reportLimits({ diffsOmitted: omitted }) }),
    );
    const bytes = Buffer.byteLength(page);
    console.log(
      `10,000-file report: ${bytes} bytes (${(bytes / 1024 / 1024).toFixed(2)} MB), ${omitted} diffs omitted`,
    );
    expect(page.match(/<details class="file"/g)).toHaveLength(10_000);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);
  });

  it('counts the blocks and files past the listing caps, in the step and in the limits note', async () => {
    const step = reportStep('big', { blocksOmitted: 98, filesOmitted: 4999 });
    const page = await renderRunReportPage(
      runReport({
        steps: [step],
        limits: reportLimits({ maxFiles: 2000, maxBlocks: 2000, filesOmitted: 4999, blocksOmitted: 98 }),
      }),
    );
    // The summary counts every row, listed or not.
    expect(page).toContain('node · agent builder · 1.5 s · lane 1 · 100 blocks · 1 rejected · 5000 files');
    expect(page).toContain('<p class="note">98 more blocks of this document are counted, not listed.</p>');
    expect(page).toContain(
      '<p class="note">4999 more file versions of this step are counted, not listed.</p>',
    );
    expect(page).toContain('<strong>4999 file versions only counted, 98 blocks only counted</strong>');
    expect(page).toContain('Caps: at most 2000 file versions and 2000 blocks listed; diffs cut at 400 lines');
  });
});
