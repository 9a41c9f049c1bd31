import type * as Tar from 'tar';
import { lazyModule } from '../../project/index.js';

/** node-tar loads when a bundle is first packed or read: every other artifacts command skips it. */
export const tarModule = lazyModule<typeof Tar>('tar');
