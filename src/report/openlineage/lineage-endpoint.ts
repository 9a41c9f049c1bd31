/** Marquez's endpoint for OpenLineage events, appended to the URL the user gives. */
export const LINEAGE_API_PATH = '/api/v1/lineage';

/** The endpoint to POST events to, or why the URL given cannot be one. */
export type LineageEndpoint =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly code: 'invalid_url'; readonly message: string };

/**
 * The lineage endpoint of a server URL: `/api/v1/lineage` appended to its path, so a proxy prefix
 * (`https://host/marquez`) is kept and a URL that already ends in it is taken as is; http and https only.
 */
export function lineageEndpoint(text: string): LineageEndpoint {
  if (!URL.canParse(text)) {
    return refuse(`'${text}' is not a URL; give the server's address, such as http://localhost:5000`);
  }
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(
      `the URL must start with http:// or https://, not ${url.protocol}//, such as http://localhost:5000`,
    );
  }
  // Credentials in a URL end up in logs and proxies; fetch also refuses them.
  if (url.username !== '' || url.password !== '') {
    return refuse('the URL must not carry a user or password; send an API key as a Bearer token instead');
  }
  url.hash = '';
  if (!url.pathname.endsWith(LINEAGE_API_PATH)) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${LINEAGE_API_PATH}`;
  }
  return { ok: true, url };
}

function refuse(message: string): LineageEndpoint {
  return { ok: false, code: 'invalid_url', message };
}
