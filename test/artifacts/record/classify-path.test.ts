import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../../src/artifacts/record/classify-path.js';

describe('classifyPath', () => {
  it.each([
    ['workspace/src/a.ts', 'text/typescript', false, 'typescript'],
    ['workspace/src/App.TSX', 'text/tsx', false, 'tsx'],
    ['workspace/src/Api.cs', 'text/x-csharp', false, 'csharp'],
    ['workspace/README.md', 'text/markdown', false, 'markdown'],
    ['workspace/notes.txt', 'text/plain', false, undefined],
    ['workspace/config.yml', 'application/yaml', false, 'yaml'],
    ['workspace/img/logo.png', 'image/png', true, undefined],
    ['workspace/img/photo.JPG', 'image/jpeg', true, undefined],
    ['workspace/img/icon.svg', 'image/svg+xml', true, 'svg'],
    ['workspace/docs/flow.mmd', 'text/vnd.mermaid', true, 'mermaid'],
    ['workspace/docs/seq.puml', 'text/vnd.plantuml', true, 'plantuml'],
    ['workspace/docs/deps.dot', 'text/vnd.graphviz', true, 'dot'],
    ['workspace/docs/arch.drawio', 'application/vnd.jgraph.mxfile', true, 'xml'],
    ['workspace/docs/sketch.excalidraw', 'application/vnd.excalidraw+json', true, 'json'],
    ['workspace/Makefile', 'application/octet-stream', false, undefined],
    ['workspace/.gitignore', 'application/octet-stream', false, undefined],
    ['workspace/archive.tar.gz', 'application/octet-stream', false, undefined],
    ['workspace/v1.2/Makefile', 'application/octet-stream', false, undefined],
    ['workspace/file.', 'application/octet-stream', false, undefined],
    ['workspace/x.constructor', 'application/octet-stream', false, undefined],
    ['workspace/x.__proto__', 'application/octet-stream', false, undefined],
  ])('classifies %s as %s (design %s, language %s)', (path, mediaType, design, language) => {
    expect(classifyPath(path)).toEqual({ mediaType, design, language });
  });
});
