import { describe, expect, it } from 'vitest';
import { endsInsideOpenFence } from '../../src/fence/ends-inside-open-fence.js';

describe('endsInsideOpenFence', () => {
  it.each<[string, string, boolean]>([
    ['no fence at all', '# Title\n\ntext\n', false],
    ['a closed fence', '```sh\nx\n```\n', false],
    ['an open backtick fence', '# T\n```bash\nnpm i\n', true],
    ['an open tilde fence', '~~~\nx\n', true],
    ['an open fence holding blank lines', '```\nx\n\n\n', true],
    ['an open fence on the last line', 'text\n```\n', true],
    ['an open fence in a list item', '- ```\n  x\n', true],
    ['an open fence in a blockquote', '> ```\n> x\n', true],
    ['a fence its blockquote ended', '> ```\n> x\n\nmore\n', false],
    ['a fence shown in indented code', '    ```\n', false],
    ['a fence shown in an HTML block', '<div>\n```\n</div>\n', false],
    ['a fence shown in inline code', 'use `` ``` `` to fence\n', false],
  ])('%s: %s', (_name, markdown, expected) => {
    expect(endsInsideOpenFence(markdown)).toBe(expected);
  });
});
