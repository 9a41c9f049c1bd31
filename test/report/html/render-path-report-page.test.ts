import { describe, expect, it } from 'vitest';
import { escapeHtml, renderPathReportPage } from '../../../src/report/index.js';
import { pathReport, poisonStrings } from '../../helpers/report-fixture.js';

describe('renderPathReportPage', () => {
  it('lists every version oldest first with who wrote it, and each diff colored by line kind', () => {
    const page = renderPathReportPage(pathReport());
    expect(page).toContain('<h1>Path <code>workspace/src/a.ts</code></h1>');
    expect(page).toContain('2 versions across 2 runs');
    expect(page.indexOf('<code>run-1</code>')).toBeLessThan(page.indexOf('<code>run-2</code>'));
    expect(page).toContain('<td>build</td><td>builder</td>');
    expect(page).toContain('<span class="d">-two</span><span class="a">+three</span>');
    expect(page).toContain('first version');
    expect(page).toContain('previous <code>art-1</code>');
  });

  it('escapes every string of the model', () => {
    const { poisoned, payloads } = poisonStrings(pathReport(), (field) => field.endsWith('.diff.kind'));
    const page = renderPathReportPage(poisoned);
    expect(page).not.toContain('<b id=');
    const missing = payloads
      .filter(({ payload }) => !page.includes(escapeHtml(payload)))
      .map(({ field }) => field);
    expect(missing).toEqual([]);
  });

  it('is one self-contained page with the generator meta and no http URL', () => {
    const page = renderPathReportPage(pathReport());
    expect(page).toContain('<meta name="generator" content="artifact-ingest report">');
    expect(page).not.toMatch(/https?:/i);
    expect(page.match(/<h1[ >]/g)).toHaveLength(1);
  });

  it('says so when no run recorded the path', () => {
    expect(renderPathReportPage(pathReport({ versions: [] }))).toContain(
      'No run recorded a version of this path.',
    );
  });
});
