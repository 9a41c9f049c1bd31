/** What a file's extension says about it: its media type, whether it is a design, and its language. */
export interface PathClass {
  readonly mediaType: string;
  /** True for images and diagrams: recorded as `design`, not `file` (spec artifacts.md, "The record"). */
  readonly design: boolean;
  /** A language name for source files, or undefined when the extension names none. */
  readonly language: string | undefined;
}

// Extension -> [media type, language]. Designs are image/* plus the diagram formats agents write as text.
const BY_EXTENSION: Readonly<Record<string, readonly [string, string | undefined]>> = {
  png: ['image/png', undefined],
  jpg: ['image/jpeg', undefined],
  jpeg: ['image/jpeg', undefined],
  gif: ['image/gif', undefined],
  webp: ['image/webp', undefined],
  avif: ['image/avif', undefined],
  bmp: ['image/bmp', undefined],
  ico: ['image/vnd.microsoft.icon', undefined],
  svg: ['image/svg+xml', 'svg'],
  drawio: ['application/vnd.jgraph.mxfile', 'xml'],
  excalidraw: ['application/vnd.excalidraw+json', 'json'],
  mmd: ['text/vnd.mermaid', 'mermaid'],
  mermaid: ['text/vnd.mermaid', 'mermaid'],
  puml: ['text/vnd.plantuml', 'plantuml'],
  plantuml: ['text/vnd.plantuml', 'plantuml'],
  dot: ['text/vnd.graphviz', 'dot'],
  gv: ['text/vnd.graphviz', 'dot'],
  ts: ['text/typescript', 'typescript'],
  tsx: ['text/tsx', 'tsx'],
  mts: ['text/typescript', 'typescript'],
  cts: ['text/typescript', 'typescript'],
  js: ['text/javascript', 'javascript'],
  jsx: ['text/jsx', 'jsx'],
  mjs: ['text/javascript', 'javascript'],
  cjs: ['text/javascript', 'javascript'],
  json: ['application/json', 'json'],
  md: ['text/markdown', 'markdown'],
  py: ['text/x-python', 'python'],
  rs: ['text/x-rust', 'rust'],
  go: ['text/x-go', 'go'],
  java: ['text/x-java', 'java'],
  kt: ['text/x-kotlin', 'kotlin'],
  cs: ['text/x-csharp', 'csharp'],
  c: ['text/x-c', 'c'],
  h: ['text/x-c', 'c'],
  cpp: ['text/x-c++', 'cpp'],
  hpp: ['text/x-c++', 'cpp'],
  rb: ['text/x-ruby', 'ruby'],
  php: ['text/x-php', 'php'],
  swift: ['text/x-swift', 'swift'],
  sh: ['text/x-shellscript', 'bash'],
  bash: ['text/x-shellscript', 'bash'],
  yaml: ['application/yaml', 'yaml'],
  yml: ['application/yaml', 'yaml'],
  toml: ['application/toml', 'toml'],
  html: ['text/html', 'html'],
  css: ['text/css', 'css'],
  sql: ['application/sql', 'sql'],
  xml: ['application/xml', 'xml'],
  txt: ['text/plain', undefined],
};

/** Classifies a path by its extension (case-insensitive); an unknown extension is an octet-stream `file`. */
export function classifyPath(path: string): PathClass {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  const known = Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension] : undefined;
  if (known === undefined) {
    return { mediaType: 'application/octet-stream', design: false, language: undefined };
  }
  const [mediaType, language] = known;
  const design =
    mediaType.startsWith('image/') || /^(text\/vnd\.|application\/vnd\.(jgraph|excalidraw))/.test(mediaType);
  return { mediaType, design, language };
}
