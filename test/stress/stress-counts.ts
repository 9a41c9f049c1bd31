/**
 * What a stress scenario reports: one count per kind of problem (each must be 0), which of them it measures,
 * what it exercised, and the table `npm run stress` prints of them.
 */

/** The counts, in the table's column order, with their column titles. */
export const COUNT_COLUMNS = [
  ['torn', 'torn'],
  ['escapes', 'escapes'],
  ['unreadable', 'unreadable lines'],
  ['staleTemps', 'stale temps'],
  ['drift', 'drift'],
  ['lostEvents', 'lost events'],
  ['missingSnapshots', 'no snapshot'],
  ['lostUpdates', 'lost updates'],
  ['duplicatePasses', 'dup passes'],
  ['outsideBytes', 'outside bytes'],
  ['crashes', 'crashes'],
  ['hangs', 'hangs'],
  ['oversized', 'oversized'],
  ['missingManifests', 'no manifest'],
  ['lostBlocks', 'lost blocks'],
  ['remoteMissing', 'missing in remote'],
  ['remoteDuplicated', 'twice in remote'],
] as const;

/** One kind of problem a scenario counts. */
export type CountKey = (typeof COUNT_COLUMNS)[number][0];

/** The counts the writer scenarios (issue 11) measure. */
export const WRITER_COUNTS: readonly CountKey[] = [
  'torn',
  'escapes',
  'unreadable',
  'staleTemps',
  'drift',
  'hangs',
];

/** A scenario's result: every count (0 when not measured), which ones it measured, and what it exercised. */
export type Counts = Record<CountKey, number> & {
  /** The counts this scenario measures; the table shows '-' for the others. */
  readonly measured: readonly CountKey[];
  /** What was exercised: kills, paths, swaps, writers, registrations, documents. */
  trials: number;
  /** Shown instead of `trials` when set: what the trials were made of. */
  detail?: string;
  /** Run kills that landed before the run's first state write (nothing to resume: run afresh; not a trial). */
  notStarted?: number;
  seconds: number;
  /** Figures printed under the table (not counts): the hostile documents' time and peak memory. */
  figures?: { readonly header: readonly string[]; readonly rows: readonly (readonly string[])[] };
};

/** Counts of a scenario that measures `measured`, all 0. */
export function zero(measured: readonly CountKey[] = WRITER_COUNTS): Counts {
  const counts = Object.fromEntries(COUNT_COLUMNS.map(([key]) => [key, 0])) as Record<CountKey, number>;
  return { ...counts, measured, trials: 0, seconds: 0 };
}

/** The sum of the counts a scenario measured: 0 when it found nothing. */
export function problemsOf(counts: Counts): number {
  return counts.measured.reduce((sum, key) => sum + counts[key], 0);
}

/** Left-aligned columns, two spaces apart. */
export function renderColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * The table of scenario rows: the columns of the counts some row measured ('-' where a row does not), then each
 * row's figures, if any, under the table.
 */
export function renderCountsTable(rows: readonly (readonly [string, Counts])[]): string {
  const shown = COUNT_COLUMNS.filter(([key]) => rows.some(([, counts]) => counts.measured.includes(key)));
  const anyNotStarted = rows.some(([, counts]) => counts.notStarted !== undefined);
  const header = [
    'scenario',
    'trials',
    ...(anyNotStarted ? ['not started'] : []),
    ...shown.map(([, title]) => title),
    'seconds',
  ];
  const lines = rows.map(([name, counts]) => [
    name,
    counts.detail ?? String(counts.trials),
    ...(anyNotStarted ? [counts.notStarted === undefined ? '-' : String(counts.notStarted)] : []),
    ...shown.map(([key]) => (counts.measured.includes(key) ? String(counts[key]) : '-')),
    counts.seconds.toFixed(1),
  ]);
  let text = renderColumns(header, lines);
  for (const [name, counts] of rows) {
    if (counts.figures !== undefined) {
      text += `\n${name}:\n${renderColumns(counts.figures.header, counts.figures.rows)}`;
    }
  }
  return text;
}

/** The self-check's counts, one per line: each count's title and what it found of its plant. */
export function renderPlantedCounts(counts: Counts): string {
  return renderColumns(
    ['count (each planted once or more)', 'found'],
    COUNT_COLUMNS.filter(([key]) => counts.measured.includes(key)).map(([key, title]) => [
      title,
      String(counts[key]),
    ]),
  );
}
