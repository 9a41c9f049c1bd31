/**
 * The hostile-input part of `npm run bench`: for each input that once took quadratic time, the seconds at size n
 * and at 2n, measured in the same run, and t(2n)/t(n). A ratio near 2 is linear, near 4 quadratic. These were
 * wall-clock asserts in the unit tests; the tests now check only the results. Run alone with
 * `npx tsx test/bench/hostile-inputs.ts`.
 */
import { fileURLToPath } from 'node:url';
import { validateArtifact } from '../../src/contracts/index.js';
import { parseFences } from '../../src/fence/index.js';
import { mayHoldCandidate } from '../../src/fence/may-hold-candidate.js';
import { redactSecrets } from '../../src/project/index.js';
import { parseTemplate } from '../../src/runtime/graph/index.js';

interface HostileInput {
  readonly name: string;
  /** The unit test that checks this input's result. */
  readonly test: string;
  /** The input at size `n` (a repeat count), and the function to time on it. */
  readonly make: (n: number) => string | object;
  readonly run: (input: never) => unknown;
  readonly n: number;
}

const fmt = (value: number): string => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function redactRow(name: string, unit: string, n: number, prefix = '', suffix = ''): HostileInput {
  return {
    name: `redactSecrets: ${name}`,
    test: 'test/project/find-secret.test.ts',
    make: (size) => `${prefix}${unit.repeat(size)}${suffix}`,
    run: (text: string) => redactSecrets(text),
    n,
  };
}

const INPUTS: readonly HostileInput[] = [
  redactRow('sk- repeated', 'sk-', 200_000),
  redactRow('a. repeated', 'a.', 300_000),
  redactRow('a URL of a: pairs', 'a:', 300_000, 'x://'),
  redactRow('a megabyte bearer token', 'A', 600_000, 'Bearer '),
  redactRow('eyJ repeated', 'eyJ', 200_000),
  redactRow('a megabyte password', 'p', 600_000, 'password='),
  redactRow('unterminated PEM headers', '-----BEGIN PRIVATE KEY-----', 20_000),
  {
    name: 'mayHoldCandidate: fences without =',
    test: 'test/fence/may-hold-candidate.test.ts',
    make: (size) => '```ts\nconst a = 1;\n```\n\n'.repeat(size),
    run: (text: string) => mayHoldCandidate(text, false),
    n: 500_000,
  },
  ...(['scanner', 'micromark'] as const).map((parser): HostileInput => ({
    name: `parseFences (${parser}): 5 lines in 20k block quotes (flattened containers)`,
    test: 'test/fence/flatten-container.test.ts',
    // The trailing candidate block makes parseFences parse instead of taking its no-candidate shortcut.
    make: (size) => `${`${'>'.repeat(size)} a\n`.repeat(5)}\n\`\`\`ts file=a.ts\nx\n\`\`\`\n`,
    run: (text: string) => parseFences(text, { parser }),
    n: 20_000,
  })),
  {
    name: 'parseFences (scanner): 3 lines of n nested `- ` markers',
    test: 'test/fence/scan-fences.test.ts',
    make: (size) => `${`${'- '.repeat(size)}x\n`.repeat(3)}\`\`\`ts file=a.ts\nx\n\`\`\`\n`,
    run: (text: string) => parseFences(text),
    n: 20_000,
  },
  {
    name: 'parseFences (scanner): n lazy lines in a block quote',
    test: 'test/fence/scan-fences.test.ts',
    make: (size) => `${'> a\nb\n'.repeat(size)}\n\`\`\`ts file=a.ts\nx\n\`\`\`\n`,
    run: (text: string) => parseFences(text),
    n: 50_000,
  },
  {
    name: 'parseTemplate: unclosed braces',
    test: 'test/runtime/graph/template.test.ts',
    make: (size) => `{${'a'.repeat(100)}`.repeat(size),
    run: (text: string) => parseTemplate(text),
    n: 20_000,
  },
  {
    name: 'validateArtifact: bad issues items',
    test: 'test/contracts/types/validate-artifact.test.ts',
    make: (size) => ({
      issues: Array.from({ length: size }, (_, index) => ({ id: index, severity: 'fatal', extra: true })),
    }),
    run: (payload: object) => validateArtifact('issues', payload),
    n: 10_000,
  },
];

/** Median seconds of 3 calls (after one warm-up call) of `run` on `input`. */
function secondsOf(run: (input: never) => unknown, input: unknown): number {
  run(input as never);
  const times: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const t0 = performance.now();
    run(input as never);
    times.push((performance.now() - t0) / 1000);
  }
  return median(times);
}

/** Measures every hostile input at n and 2n and returns the markdown section (also printed row by row). */
export function hostileInputSection(): string {
  const rows: string[] = [];
  for (const input of INPUTS) {
    const small = secondsOf(input.run, input.make(input.n));
    const large = secondsOf(input.run, input.make(input.n * 2));
    const row = `| ${input.name} | ${String(input.n)} | ${fmt(small * 1000)} | ${fmt(large * 1000)} | ${fmt(large / small)} |`;
    rows.push(row);
    console.log(row);
  }
  return `## Hostile inputs: t(2n)/t(n)

Inputs that once took quadratic time, each timed at repeat count n and 2n in the same run (median of 3 calls
after a warm-up). A ratio near 2 is linear, near 4 quadratic. The unit tests check only what each returns.

| input | n | ms at n | ms at 2n | t(2n)/t(n) |
|---|---:|---:|---:|---:|
${rows.join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) hostileInputSection();
