import { afterAll, describe, expect, it } from 'vitest';
import {
  IsolatedMarkdownRenderer,
  renderDocuments,
  renderMarkdown,
} from '../../../../src/report/html/markdown/index.js';
import { hostileLinkOpeners } from '../../../helpers/hostile-markdown.js';

// Hang guard only: a hostile render that is not stopped runs for about 11 s.
const GUARD = 20_000;
const NORMAL = '# Notes\n\nAll **done**.\n';
const DOCUMENT_NOTE = 'Too complex to render within the 300 ms limit per document; shown as text.';
const PAGE_NOTE = (limit: string): string =>
  `Not rendered: the report's ${limit} budget for rendering documents was used up; shown as text.`;

const renderer = new IsolatedMarkdownRenderer();
afterAll(() => renderer.close());

describe('renderDocuments', () => {
  it(
    'shows a document past its own limit as text with a note, and renders the documents around it',
    async () => {
      const renderings = await renderDocuments([NORMAL, hostileLinkOpeners(), null, NORMAL], 4, {
        documentTimeLimitMs: 300,
        pageTimeLimitMs: 600_000,
        renderer,
      });
      const html = { kind: 'html', html: renderMarkdown(NORMAL, 4) };
      expect(renderings).toEqual([html, { kind: 'text', note: DOCUMENT_NOTE }, null, html]);
    },
    GUARD,
  );

  it(
    "cuts the document that uses up the page's budget, and shows every later one as text without rendering it",
    async () => {
      // The shared renderer, given a live worker first (starting one on a .ts entry loads tsx: a second of CPU).
      expect((await renderer.render(NORMAL, 4, 600_000)).kind).toBe('html');
      const before = renderer.workersStarted;
      // micromark renders the hostile document in about 11 s, so however slow the machine it uses up a 50 ms
      // budget: the short budget cannot fail falsely.
      const renderings = await renderDocuments([hostileLinkOpeners(), NORMAL, NORMAL], 4, {
        documentTimeLimitMs: 600_000,
        pageTimeLimitMs: 50,
        renderer,
      });
      expect(renderings).toEqual(Array(3).fill({ kind: 'text', note: PAGE_NOTE('50 ms') }));
      // Only the hostile document reached a worker, the live one, which was terminated; none was started after it.
      expect(renderer.workersStarted).toBe(before);
    },
    GUARD,
  );

  it('renders nothing at all with a page budget of zero', async () => {
    const idle = new IsolatedMarkdownRenderer();
    const renderings = await renderDocuments([NORMAL], 4, { pageTimeLimitMs: 0, renderer: idle });
    expect(renderings).toEqual([{ kind: 'text', note: PAGE_NOTE('0 ms') }]);
    expect(idle.workersStarted).toBe(0);
  });
});
