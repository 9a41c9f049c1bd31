import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Writes, into `dir`, a module for `node --import` that prints `LOADED <file URL>` on stderr for every file a
 * process loads: ES modules through a `load` hook, CommonJS ones (pino, yaml, fast-glob, loaded by require)
 * through `Module._load`. With `LOAD_LOG` set in the environment each line is also appended to that file, at
 * once: a worker thread's stderr reaches the process's asynchronously and can be cut off when the worker ends.
 * Returns its path. Used by the lazy-loading test and the cli-load bench.
 */
export async function writeModuleLoadHooks(dir: string): Promise<string> {
  const hook = path.join(dir, 'hook.mjs');
  await writeFile(
    hook,
    [
      "import { appendFileSync } from 'node:fs';",
      'const log = process.env.LOAD_LOG;',
      "export async function load(url, context, next) { if (url.startsWith('file:')) { process.stderr.write(`LOADED ${url}\\n`); if (log) appendFileSync(log, `LOADED ${url}\\n`); } return next(url, context); }",
      '',
    ].join('\n'),
  );
  const register = path.join(dir, 'register.mjs');
  await writeFile(
    register,
    [
      "import { appendFileSync } from 'node:fs';",
      "import Module, { register } from 'node:module';",
      'const log = process.env.LOAD_LOG;',
      `register(${JSON.stringify(pathToFileURL(hook).href)});`,
      'const load = Module._load;',
      'Module._load = function (request, parent, isMain) {',
      '  const loaded = load.call(this, request, parent, isMain);',
      "  try { const file = Module._resolveFilename(request, parent, isMain); if (file.startsWith('/')) { process.stderr.write(`LOADED file://${file}\\n`); if (log) appendFileSync(log, `LOADED file://${file}\\n`); } } catch {}",
      '  return loaded;',
      '};',
      '',
    ].join('\n'),
  );
  return register;
}
