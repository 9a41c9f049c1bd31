import { createRequire } from 'node:module';

/** The version in the package's package.json (`--version`, the MCP server's, the OpenLineage producer's). */
export function packageVersion(): string {
  // require() of JSON: the package's own manifest, read once by Node's loader and cached.
  const pkg = createRequire(import.meta.url)('../../package.json') as { readonly version: string };
  return pkg.version;
}
