import { afterAll, describe, expect, it } from 'vitest';
import { IsolatedMarkdownRenderer, renderMarkdown } from '../../../../src/report/html/markdown/index.js';
import { hostileLinkOpeners } from '../../../helpers/hostile-markdown.js';

const NORMAL = '# Plan\n\nSome *text* and <script>window.pwned = 1</script>.\n';

const renderers: IsolatedMarkdownRenderer[] = [];
const newRenderer = (
  ...args: ConstructorParameters<typeof IsolatedMarkdownRenderer>
): IsolatedMarkdownRenderer => {
  const renderer = new IsolatedMarkdownRenderer(...args);
  renderers.push(renderer);
  return renderer;
};
afterAll(async () => {
  await Promise.all(renderers.map((renderer) => renderer.close()));
});

describe('IsolatedMarkdownRenderer', () => {
  it('renders in the worker exactly what renderMarkdown renders in-process', async () => {
    const renderer = newRenderer();
    const rendering = await renderer.render(NORMAL, 4, 10_000);
    expect(rendering.kind === 'html' ? rendering.html.value : rendering.kind).toBe(
      renderMarkdown(NORMAL, 4).value,
    );
  });

  it('terminates the worker of a document past its limit: two hostile documents time out, a normal one after them renders', async () => {
    const renderer = newRenderer();
    const [first, second, third] = await Promise.all([
      renderer.render(hostileLinkOpeners(), 4, 300),
      renderer.render(hostileLinkOpeners(), 4, 300),
      renderer.render(NORMAL, 4, 120_000),
    ]);
    expect(first).toEqual({ kind: 'timed-out' });
    expect(second).toEqual({ kind: 'timed-out' });
    expect(third.kind).toBe('html');
    // One worker per hostile document, each terminated, and a third for the normal one.
    expect(renderer.workersStarted).toBe(3);
  });

  it('starts nothing for a limit of zero', async () => {
    const renderer = newRenderer();
    expect(await renderer.render(NORMAL, 4, 0)).toEqual({ kind: 'timed-out' });
    expect(renderer.workersStarted).toBe(0);
  });

  it('says it failed, never rendering in-process, when no worker can be started', async () => {
    const warnings: string[] = [];
    const renderer = newRenderer({
      workerEntry: new URL('./no-such-worker.js', import.meta.url),
      warn: (message) => warnings.push(message),
    });
    const rendering = await renderer.render(NORMAL, 4, 10_000);
    expect(rendering.kind === 'failed' ? rendering.reason : rendering.kind).toMatch(
      /^cannot start the markdown render worker .*no-such-worker/,
    );
    expect(warnings).toEqual([
      expect.stringMatching(/no-such-worker.*; agent documents in reports are shown as text$/),
    ]);
  });
});
