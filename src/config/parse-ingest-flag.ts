/** Reads `1|true|on` as true and `0|false|off` as false (trimmed, any case); anything else is undefined. */
export function parseIngestFlag(text: string): boolean | undefined {
  switch (text.trim().toLowerCase()) {
    case '1':
    case 'true':
    case 'on':
      return true;
    case '0':
    case 'false':
    case 'off':
      return false;
    default:
      return undefined;
  }
}
