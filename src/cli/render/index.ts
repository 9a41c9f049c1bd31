export { capRows, LISTING_CAP } from './cap-rows.js';
export { displayWidth, padToWidth } from './display-width.js';
export { progressLine } from './progress-line.js';
export type { ProgressLine } from './progress-line.js';
export { renderTable } from './render-table.js';
