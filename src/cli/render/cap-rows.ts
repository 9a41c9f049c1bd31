/** How many rows a per-block listing shows on a terminal before it says how many more there are. */
export const LISTING_CAP = 50;

/**
 * Caps a listing for a terminal: the first {@link LISTING_CAP} rows and a closing line such as
 * `... and 5,000 more; --json for all`; everything when not capped (piped output, `--json`).
 */
export function capRows<T>(
  rows: readonly T[],
  capped: boolean,
): { readonly rows: readonly T[]; readonly more: string | undefined } {
  if (!capped || rows.length <= LISTING_CAP) return { rows, more: undefined };
  const hidden = (rows.length - LISTING_CAP).toLocaleString('en-US');
  return { rows: rows.slice(0, LISTING_CAP), more: `... and ${hidden} more; --json for all` };
}
