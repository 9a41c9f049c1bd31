export { htmlBlockEnds, htmlBlockKind } from './html-block-kind.js';
export { isDefinitionsOnly } from './is-definitions-only.js';
