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
// Starting a worker on a .ts entry loads tsx (about a second of CPU): the tests that need a working worker share
// this renderer, each leaving it with a live worker and counting the workers it starts itself.
let shared: IsolatedMarkdownRenderer | undefined;
const sharedRenderer = (): IsolatedMarkdownRenderer => (shared ??= newRenderer());

describe('IsolatedMarkdownRenderer', () => {
  it('renders in the worker exactly what renderMarkdown renders in-process', async () => {
    const renderer = sharedRenderer();
    const rendering = await renderer.render(NORMAL, 4, 10_000);
    expect(rendering.kind === 'html' ? rendering.html.value : rendering.kind).toBe(
      renderMarkdown(NORMAL, 4).value,
    );
  });

  it('terminates the worker of a document past its limit: two hostile documents time out, a normal one after them renders', async () => {
    const renderer = sharedRenderer();
    expect((await renderer.render(NORMAL, 4, 120_000)).kind).toBe('html');
    const before = renderer.workersStarted;
    // micromark renders these in about 11 s, so however slow the machine they time out: 50 ms cannot fail falsely.
    const [first, second, third] = await Promise.all([
      renderer.render(hostileLinkOpeners(), 4, 50),
      renderer.render(hostileLinkOpeners(), 4, 50),
      renderer.render(NORMAL, 4, 120_000),
    ]);
    expect(first).toEqual({ kind: 'timed-out' });
    expect(second).toEqual({ kind: 'timed-out' });
    expect(third.kind).toBe('html');
    // The live worker took the first hostile document; one fresh worker after each of the two terminated.
    expect(renderer.workersStarted).toBe(before + 2);
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
