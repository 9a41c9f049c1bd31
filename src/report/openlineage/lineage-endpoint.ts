import { parseHttpUrl } from '../../project/index.js';

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
  const parsed = parseHttpUrl(text, 'http://localhost:5000', 'an API key as a Bearer token');
  if (!parsed.ok) return refuse(parsed.message);
  const { url } = parsed;
  if (!url.pathname.endsWith(LINEAGE_API_PATH)) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${LINEAGE_API_PATH}`;
  }
  return { ok: true, url };
}

function refuse(message: string): LineageEndpoint {
  return { ok: false, code: 'invalid_url', message };
}
