export { IsolatedFenceParser, parseFencesIsolated } from './parse-fences-isolated.js';
export type { IsolatedFenceParserOptions, IsolatedParseOptions } from './parse-fences-isolated.js';
