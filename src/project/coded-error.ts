/**
 * The base of every error the product throws on purpose: a stable string `code` beside the message, what a caller
 * switches on (`instanceof` the subclass for its other fields). Each subclass names itself and narrows `Code` to
 * its closed union.
 */
export class CodedError<Code extends string = string> extends Error {
  /** What went wrong, as a stable string. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
