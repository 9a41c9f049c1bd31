// Times one micromark() HTML compile of a file in its own process, so the bench can cap it (`npm run bench`).
import { readFileSync } from 'node:fs';
import { micromark } from 'micromark';

const text = readFileSync(process.argv[2] ?? '', 'utf8');
const t0 = performance.now();
micromark(text);
process.stdout.write(`${String((performance.now() - t0) / 1000)}\n`);
