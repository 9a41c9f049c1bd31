/** An http(s) URL without credentials, its fragment dropped; or why `text` cannot be one. */
export type HttpUrl =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly message: string };

/**
 * `text` as the URL of a server to POST to: http or https only, no user or password (credentials in a URL end up
 * in logs and proxies, and fetch refuses them), the fragment dropped. `example` is a URL the messages suggest
 * (`http://localhost:4318`), `credentials` where credentials go instead (`as a Bearer token`).
 */
export function parseHttpUrl(text: string, example: string, credentials: string): HttpUrl {
  if (!URL.canParse(text)) {
    return { ok: false, message: `'${text}' is not a URL; give the server's address, such as ${example}` };
  }
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      message: `the URL must start with http:// or https://, not ${url.protocol}//, such as ${example}`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: `the URL must not carry a user or password; send ${credentials} instead` };
  }
  url.hash = '';
  return { ok: true, url };
}
