/** The message of a thrown value, for a report or an event: an Error's message, anything else as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
