/**
 * The largest offset at or below `maxBytes` that does not split a UTF-8 sequence (continuation bytes are
 * 10xxxxxx), so `bytes.subarray(0, end)` decodes to whole characters.
 */
export function utf8PrefixEnd(bytes: Uint8Array, maxBytes: number): number {
  if (bytes.byteLength <= maxBytes) return bytes.byteLength;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return end;
}
