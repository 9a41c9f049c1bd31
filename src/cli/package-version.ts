import { readFileSync } from 'node:fs';

/** The version in the package's package.json (`--version`, the MCP server's, the OpenLineage producer's). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
