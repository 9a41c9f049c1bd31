/** The errno name (`ENOENT`, `ELOOP`, ...) of a Node system error, or undefined for anything else. */
export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
