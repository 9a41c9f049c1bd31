/**
 * The CLI part of `npm run bench`: what each command pays for loading modules before it does any work. Each
 * command runs as `node dist/cli/main.js <command> --help` (help is printed by the command's own module, so this
 * loads exactly what the command loads, and does nothing else), beside bare `node -e 0` and `--version` in the
 * same run, interleaved, median of ROUNDS; plus the number of modules each loads. Run alone with
 * `npx tsx test/bench/cli-load.ts` after `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeModuleLoadHooks } from '../helpers/module-load-hooks.js';

const ROUNDS = 9;
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The commands measured: every top-level command of the CLI. */
export const CLI_LOAD_COMMANDS: readonly string[] = [
  'run',
  'runs',
  'show',
  'ingest',
  'demo',
  'mcp',
  'submit',
  'audit',
  'workflow',
  'replay',
  'report',
  'checkout',
  'log',
  'verify',
  'bundle',
  'import',
  'export',
  'reindex',
];

/** The same measure on the CLI before issue 14 (eb09937), in one run beside the build after it; kept for the comparison. */
const BEFORE_ISSUE_14 = `### Before issue 14 (2026-11-23)

The build of eb09937, measured in the same run as the build after issue 14 (alternating, two rounds; round 1
shown, round 2 within 15%): every command loaded yaml, pino, node-tar, fast-glob and micromark's parser, and
\`--version\` loaded the id schemas (zod) for the output's redaction.

| command | CPU ms | over bare node, CPU ms | modules loaded | after issue 14: over bare node, CPU ms | modules loaded |
|---|---:|---:|---:|---:|---:|
| bare \`node -e 0\` | 68 | | | | |
| \`--version\` | 214 | 147 | 200 | 8 | 7 |
| \`log\` | 310 | 243 | 333 | 201 | 244 |
| \`checkout\` | 321 | 254 | 334 | 204 | 245 |
| \`verify\` | 296 | 229 | 332 | 184 | 243 |
| \`replay\` | 401 | 333 | 472 | 268 | 332 |
| \`bundle\` | 304 | 236 | 331 | 208 | 242 |
| \`runs\` | 450 | 382 | 520 | 301 | 383 |
| \`show\` | 435 | 367 | 523 | 284 | 386 |
| \`ingest\` | 382 | 314 | 520 | 249 | 307 |
| \`run\` | 424 | 356 | 522 | 282 | 385 |
| \`report\` | 484 | 416 | 690 | 387 | 532 |
| \`export\` | 495 | 427 | 690 | 403 | 532 |
| \`workflow\` | 295 | 228 | 379 | 168 | 229 |
| \`mcp\` | 575 | 508 | 863 | 463 | 653 |

What every command still loads: zod (about 95 modules; the id schemas of src/project use it) and its folders'
barrels (one entry per folder, D76).
`;

interface Row {
  readonly label: string;
  readonly wall: number;
  readonly cpu: number;
  readonly modules: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Wall and CPU (user + system) ms of one child; CPU is what the child reports at exit, so load elsewhere on
 * the machine stretches wall time far more than it does CPU time. */
function timeChild(args: readonly string[], cpuReport: string): { wall: number; cpu: number } {
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ['--import', cpuReport, ...args], { encoding: 'utf8' });
  const wall = performance.now() - t0;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(child.status)}`);
  const cpu = /^CPU_US (\d+)$/m.exec(child.stderr)?.[1];
  if (cpu === undefined) throw new Error(`node ${args.join(' ')} reported no CPU time`);
  return { wall, cpu: Number(cpu) / 1000 };
}

/** How many modules (ours and dependencies) `args` loads, counted by a module hook that sees every load. */
function moduleCount(args: readonly string[], register: string): number {
  const child = spawnSync(process.execPath, ['--import', register, ...args], { encoding: 'utf8' });
  // A module required as ESM may be seen by both loaders: count each file once.
  return new Set(child.stderr.split('\n').filter((line) => line.startsWith('LOADED '))).size;
}

/** Measures every command's start-up and returns the markdown section for docs/benchmarks.md. */
export async function cliLoadSection(
  commands: readonly string[] = CLI_LOAD_COMMANDS,
  main: string = MAIN,
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ai-bench-cli-'));
  try {
    const register = await writeModuleLoadHooks(dir);
    const cpuReport = path.join(dir, 'cpu-report.mjs');
    await writeFile(
      cpuReport,
      "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`CPU_US ${u.user + u.system}\\n`); });\n",
    );
    const cases: { label: string; args: string[] }[] = [
      { label: 'bare `node -e 0`', args: ['-e', '0'] },
      { label: '`--version`', args: [main, '--version'] },
      ...commands.map((command) => ({ label: `\`${command}\``, args: [main, command, '--help'] })),
    ];
    const walls: number[][] = cases.map(() => []);
    const cpus: number[][] = cases.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      cases.forEach((entry, i) => {
        const { wall, cpu } = timeChild(entry.args, cpuReport);
        walls[i]?.push(wall);
        cpus[i]?.push(cpu);
      });
    }
    const rows: Row[] = cases.map((entry, i) => ({
      label: entry.label,
      wall: median(walls[i] ?? []),
      cpu: median(cpus[i] ?? []),
      modules: i === 0 ? 0 : moduleCount(entry.args, register),
    }));
    const bare = rows[0] ?? { wall: Number.NaN, cpu: Number.NaN };
    const table = rows
      .map((row, i) =>
        i === 0
          ? `| ${row.label} | ${row.cpu.toFixed(0)} | | ${row.wall.toFixed(0)} | |`
          : `| ${row.label} | ${row.cpu.toFixed(0)} | ${(row.cpu - bare.cpu).toFixed(0)} | ${row.wall.toFixed(0)} | ${String(row.modules)} |`,
      )
      .join('\n');
    return `## CLI start-up: module loading per command

Each command run as \`node dist/cli/main.js COMMAND --help\`: the command's own module prints the help, so
this loads what the command loads and does no work. CPU time (user + system, as the child reports it at exit)
and wall time, medians of ${ROUNDS} interleaved rounds; "over bare node" is the command's CPU time minus bare
\`node -e 0\`'s in the same rounds: the cost of loading the command's modules; modules are counted through both loaders (ES imports and CommonJS
requires), each file once.

| command | CPU ms | over bare node, CPU ms | wall ms | modules loaded |
|---|---:|---:|---:|---:|
${table}

${BEFORE_ISSUE_14}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv.slice(2);
  console.log(await cliLoadSection(only.length > 0 ? only : CLI_LOAD_COMMANDS));
}
