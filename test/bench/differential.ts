/**
 * The differential part of `npm run bench`: the generated corpus of test/fence/differential-corpus.test.ts at
 * scale (1,000,000 documents unless `--differential N` says otherwise), every parser of DIFFERENTIAL_PARSERS
 * compared block by block with the first, and the count of disagreements printed per parser with the first
 * minimal documents. Pinned disagreements of the test (known-disagreements.ts) count here too: they are real.
 * Run alone with `npx tsx test/bench/differential.ts --differential 100000`.
 */
import { fileURLToPath } from 'node:url';
import { DIFFERENTIAL_PARSERS } from '../fence/corpus/differential-parsers.js';
import { findDisagreements, minimizeDocument } from '../fence/corpus/find-disagreements.js';
import { generateDocument } from '../fence/corpus/generate-document.js';

const DEFAULT_DOCUMENTS = 1_000_000;
/** Disagreements shown (minimized) per parser; the rest are counted. */
const SHOWN = 5;
/** Longer than any fence the generator writes, so that minimal documents show as they are. */
const FENCE = '~'.repeat(12);

/** The document count of `--differential N` in `argv`, or 1,000,000. */
export function differentialDocuments(argv: readonly string[] = process.argv): number {
  const index = argv.indexOf('--differential');
  const value = index === -1 ? undefined : Number(argv[index + 1]);
  if (value === undefined) return DEFAULT_DOCUMENTS;
  if (!Number.isInteger(value) || value < 0)
    throw new Error('--differential takes a document count, e.g. 100000');
  return value;
}

/** Compares `documents` generated documents (seeds 1..documents) and returns the markdown section. */
export function differentialSection(documents = differentialDocuments()): string {
  const [baseline, ...others] = DIFFERENTIAL_PARSERS;
  const counts = new Map(others.map((parser) => [parser.name, 0]));
  const shown: string[] = [];
  let bytes = 0;
  const t0 = performance.now();
  for (let seed = 1; seed <= documents; seed++) {
    const markdown = generateDocument(seed);
    bytes += markdown.length;
    for (const disagreement of findDisagreements(markdown, DIFFERENTIAL_PARSERS)) {
      const count = (counts.get(disagreement.parser) ?? 0) + 1;
      counts.set(disagreement.parser, count);
      if (count <= SHOWN) {
        const minimal = minimizeDocument(markdown, DIFFERENTIAL_PARSERS, disagreement.parser);
        shown.push(`seed ${seed}, ${disagreement.parser}: ${JSON.stringify(minimal)}`);
      }
    }
    if (seed % 100_000 === 0) {
      const seconds = (performance.now() - t0) / 1000;
      console.log(`differential: ${seed} documents in ${seconds.toFixed(0)} s`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const rows = others.map(
    (parser) => `| ${parser.name} | ${baseline.name} | ${String(counts.get(parser.name) ?? 0)} |`,
  );
  for (const row of rows) console.log(row);
  const per100k = documents === 0 ? 0 : (seconds / documents) * 100_000;
  return `## Differential corpus: ${documents.toLocaleString('en-US')} generated documents

Seeds 1..${documents} of test/fence/corpus/generate-document.ts (container-heavy, 50 B to 4 KB, ${(bytes / 1e6).toFixed(0)} MB in
all), each compared block by block (every RawFence field between full parsers; info string and content with
commonmark.js) in ${seconds.toFixed(0)} s, ${per100k.toFixed(0)} s per 100,000. \`npm run bench -- --differential N\` sets the count.

| parser | compared with | documents that disagree |
|---|---|---:|
${rows.join('\n')}

${shown.length === 0 ? 'No disagreement.' : `First minimal documents of each disagreement (JSON strings):\n\n${FENCE}\n${shown.join('\n')}\n${FENCE}`}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(differentialSection());
