import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")`;
// `{"jsonrpc":"2.0","id":…` or `{"id":…` at the start of the line.
const LEADING_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*[,}]`,
);
// `…,"id":…}` closing the line, where the SDK's client writes it (after method and params).
const TRAILING_ID = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * The id of a request from the first and last bytes of a line too long to read, when the line starts or ends
 * with it at the top level as clients write it; else null (JSON-RPC's id for an error whose request is unknown).
 */
export function edgeRequestId(head: Buffer, tail: Buffer): RequestId | null {
  const match = LEADING_ID.exec(head.toString('utf8')) ?? TRAILING_ID.exec(tail.toString('utf8'));
  const raw = match?.[1];
  if (raw === undefined) return null;
  try {
    const id = JSON.parse(raw) as unknown;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) return id;
  } catch {
    // An escape JSON does not know: no id.
  }
  return null;
}
