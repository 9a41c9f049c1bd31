import { REDACTED, redactSecrets } from '../project/index.js';

// The query parameters pg (and libpq) read a password from.
const PASSWORD_PARAMETER = /([?&](?:ssl)?password=)[^&#]*/gi;

/**
 * A catalog URL as every message and status line may show it: a password in it (`user:secret@`, or a
 * `password=` parameter) replaced by `[REDACTED]`, the rest as written. Text that is not a URL is passed
 * through `redactSecrets`.
 */
export function redactCatalogUrl(url: string): string {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd === -1 || !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(url.slice(0, schemeEnd)))
    return redactSecrets(url);
  const start = schemeEnd + 3;
  const query = firstIndexOf(url, '?#', start);
  // WHATWG URL (which pg parses with) ends the authority at the first "/", "?" or "#", and the user at its last
  // "@"; a text that does not parse may hold a raw "/" in its password, so there everything up to the last "@"
  // before the query is taken for the user.
  const authorityEnd = URL.canParse(url) ? firstIndexOf(url, '/?#', start) : query;
  const at = url.lastIndexOf('@', authorityEnd - 1);
  let shown = url;
  if (at >= start) {
    const colon = url.indexOf(':', start);
    if (colon !== -1 && colon + 1 < at) shown = `${url.slice(0, colon + 1)}${REDACTED}${url.slice(at)}`;
  }
  return shown.replace(PASSWORD_PARAMETER, `$1${REDACTED}`);
}

/** Index of the first of `characters` in `text` from `from`, or the text's length. */
function firstIndexOf(text: string, characters: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    if (characters.includes(text.charAt(index))) return index;
  }
  return text.length;
}
