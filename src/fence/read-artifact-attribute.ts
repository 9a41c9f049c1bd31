// A contract block's info string: exactly `json artifact=<type>`, the type a lowercase word with underscores.
const contractInfo = /^json[ \t]+artifact=([a-z][a-z_]{0,63})$/;

/**
 * The contract type of a ```` ```json artifact=<type> ```` block (spec contracts.md), read from its decoded
 * info string; undefined for every other info string. Such a block is a contract artifact, never a file.
 */
export function readArtifactAttribute(info: string): string | undefined {
  return contractInfo.exec(info.trim())?.[1];
}
