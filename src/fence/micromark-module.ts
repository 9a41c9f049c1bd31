import type * as Micromark from 'micromark';
import { lazyModule } from '../project/index.js';

/**
 * micromark's parser loads when a document is first parsed with `fence_parser: micromark`; with the default
 * scanner it never loads, and neither do its fifty-odd modules.
 */
export const micromarkModule = lazyModule<typeof Micromark>('micromark');
