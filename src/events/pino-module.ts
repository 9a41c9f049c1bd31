import type * as Pino from 'pino';
import { lazyModule } from '../project/index.js';

/** pino loads when the first event log is made: commands that only read events (show, report ...) skip it. */
export const pinoModule = lazyModule<typeof Pino>('pino');
