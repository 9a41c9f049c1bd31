/** A command-line mistake: printed with a hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}
