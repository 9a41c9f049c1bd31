/** A command-line mistake: printed with a hint to the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'usage';
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}
