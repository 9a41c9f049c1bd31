/** The commands that answer from the remote with `--remote` (spec storage.md, "Fleet reads"). */
export const REMOTE_READ_COMMANDS = [
  'runs',
  'show',
  'log',
  'replay',
  'checkout',
  'verify',
  'report',
  'export openlineage',
  'export otlp',
] as const;
