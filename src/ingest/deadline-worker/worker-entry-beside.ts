/**
 * The URL of the worker entry `name` beside the module at `moduleUrl`: its `.ts` when that module runs from the
 * sources (tests, through tsx), its `.js` in dist/.
 */
export function workerEntryBeside(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl);
}
