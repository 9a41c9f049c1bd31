import { hostname } from 'node:os';
import { z } from 'zod';
import { ConfigError } from '../config/index.js';

/** The environment variable that names the machine a run records as its `host` (in place of the host name). */
export const HOST_ENV_VAR = 'ARTIFACT_INGEST_HOST';

/** Most characters a run's `host` may have (POSIX `HOST_NAME_MAX`; DNS names stop at 253). */
export const MAX_HOST_LENGTH = 255;

// Control characters, invisible format characters (bidi overrides, zero-width), line and paragraph
// separators and lone surrogates: a host shows in tables and fleet views, where these hide or reorder text.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * Why `value` is not a plausible host name to record (empty, over {@link MAX_HOST_LENGTH} characters, or holding
 * a control or invisible character, named by code point and position), or undefined when it is one.
 */
export function hostNameProblem(value: string): string | undefined {
  // Code points: a character outside the BMP counts once, and a lone surrogate is one to name.
  const characters = Array.from(value);
  if (characters.length === 0) return 'is empty';
  if (characters.length > MAX_HOST_LENGTH) {
    return `is ${String(characters.length)} characters long, over the ${String(MAX_HOST_LENGTH)} a host name may have`;
  }
  const at = characters.findIndex((character) => UNPRINTABLE.test(character));
  if (at === -1) return undefined;
  const code = (characters[at] ?? '').codePointAt(0) ?? 0;
  const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `holds a control or invisible character (${name}, character ${String(at + 1)})`;
}

/** A run's `host` as state.json keeps it: 1-255 characters, none of them a control or invisible one. */
export const hostNameSchema = z.string().superRefine((value, context) => {
  const problem = hostNameProblem(value);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

/**
 * This machine's host as a run records it: `ARTIFACT_INGEST_HOST` read trimmed (empty counts as unset), else
 * `os.hostname()`; throws `ConfigError` naming the variable when the value (or the system's name) is not a
 * plausible host name, so a run refuses to start rather than store it.
 */
export function resolveRunHost(
  env: Readonly<Record<string, string | undefined>> = process.env,
  systemHostname: () => string = hostname,
): string {
  const given = env[HOST_ENV_VAR]?.trim() ?? '';
  const host = given === '' ? systemHostname() : given;
  const problem = hostNameProblem(host);
  if (problem === undefined) return host;
  const message =
    given === ''
      ? `is unset, and this machine's host name (os.hostname()) ${problem}; set ${HOST_ENV_VAR} to a name for this machine`
      : `${problem}; set it to a name for this machine (at most ${String(MAX_HOST_LENGTH)} characters, no control characters), or unset it to record os.hostname()`;
  throw new ConfigError('environment', [{ path: HOST_ENV_VAR, message }]);
}
