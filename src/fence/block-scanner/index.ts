export { BlockScan, FENCED } from './block-scan.js';
export { incorporateLine } from './incorporate-line.js';
