import { describe, expect, it } from 'vitest';
import { renderLeftOut } from '../../../src/report/html/render-left-out.js';
import { DEFAULT_REPORT_LIMITS } from '../../../src/report/index.js';
import type { ReportLimits } from '../../../src/report/index.js';

const limits: ReportLimits = {
  ...DEFAULT_REPORT_LIMITS,
  diffsOmitted: 0,
  diffsTruncated: 0,
  documentsTruncated: 0,
  documentsOmitted: 0,
  filesOmitted: 0,
  blocksOmitted: 0,
  replayCommand: 'artifact-ingest replay run-1 --backward',
};

describe('renderLeftOut', () => {
  it('says nothing was left out, with the caps and the replay command', () => {
    const html = renderLeftOut(limits, []).value;
    expect(html).toContain('<h2 id="limits-heading">Left out</h2>');
    expect(html).toContain('Nothing was left out.');
    expect(html).toContain('diffs cut at 400 lines');
    expect(html).toContain('<code>artifact-ingest replay run-1 --backward</code>');
    expect(html).not.toContain('Could not read');
  });

  it('counts each kind of cut that happened, and only those', () => {
    const html = renderLeftOut(
      { ...limits, filesOmitted: 8000, diffsOmitted: 3, documentsTruncated: 1 },
      [],
    ).value;
    expect(html).toContain(
      '<strong>8000 file versions only counted, 3 diffs omitted, 1 document cut</strong>',
    );
    expect(html).not.toContain('blocks only counted');
  });

  it('lists what could not be read, escaped', () => {
    const html = renderLeftOut(limits, [
      { code: 'unreadable_trace', message: 'trace <b>x</b> is gone' },
    ]).value;
    expect(html).toContain('<li><code>unreadable_trace</code>: trace &lt;b&gt;x&lt;/b&gt; is gone</li>');
  });
});
