import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * A loader of a dependency used on one path only: the module loads (synchronously, through require) the first
 * time the loader is called, so a command that never takes that path never pays for loading it (D76).
 */
// T is the module's type as the caller imports it (`typeof import`); require itself is untyped.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(specifier) as T);
}
