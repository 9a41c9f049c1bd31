/** The text that stands in for a credential in anything recorded or printed (docs/security.md, "Secrets"). */
export const REDACTED = '[REDACTED]';

interface SecretPattern {
  /** What the pattern finds, for docs/security.md and test names. */
  readonly name: string;
  readonly pattern: RegExp;
  /** Replacement text (`$1` keeps a prefix such as `Bearer `) or function of the match and its groups. */
  readonly replacement: string | ((match: string, ...groups: string[]) => string);
}

// Every repeat that can rescan is bounded, and token patterns only start where a token starts, so a
// hostile megabyte string costs linear time (measured in test/bench/run.ts, "redaction").
// Order matters: whole headers, PEM blocks and URLs go before the token shapes they may contain.
const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: 'PEM private key block',
    // An unterminated block (a truncated message) is redacted to the end of the text.
    pattern:
      /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY-----|$)/g,
    replacement: REDACTED,
  },
  {
    name: 'Authorization header',
    pattern:
      /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token|digest|bot|negotiate|ntlm)\s+)?[^\s"',;]+/gi,
    replacement: `$1${REDACTED}`,
  },
  {
    name: 'URL user:password',
    pattern: /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@:]{0,256}:[^\s/?#@]{1,256}@/gi,
    replacement: `$1${REDACTED}@`,
  },
  {
    name: 'OpenAI or Anthropic API key (sk-proj-, sk-ant-, sk-svcacct-, sk-admin-)',
    // No boundary before: the prefix is distinctive, and `xsk-proj-...` or `k_sk-ant-...` must not leak.
    pattern: /sk-(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,}/g,
    replacement: REDACTED,
  },
  {
    name: 'OpenAI legacy API key (sk-)',
    // A single run of 20+ letters and digits, or a longer token that mixes upper case, lower case and
    // digits within its first 64 characters; kebab-case names such as sk-learn-notes are neither. A "-" or
    // "_" may stand before it (k-sk-..., k_sk-...), so the look-ahead is kept short: sk-sk-sk-... stays cheap.
    pattern:
      /(?<![A-Za-z0-9])sk-(?:[A-Za-z0-9]{20,}(?![A-Za-z0-9_-])|(?=[A-Za-z0-9_-]{0,64}[A-Z])(?=[A-Za-z0-9_-]{0,64}[a-z])(?=[A-Za-z0-9_-]{0,64}[0-9])[A-Za-z0-9_-]{20,})/g,
    replacement: REDACTED,
  },
  {
    name: 'GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)',
    pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g,
    replacement: REDACTED,
  },
  {
    name: 'GitLab personal access token (glpat-)',
    pattern: /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}/g,
    replacement: REDACTED,
  },
  {
    name: 'npm token (npm_)',
    pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36,}/g,
    replacement: REDACTED,
  },
  {
    name: 'AWS access key id (AKIA, ASIA)',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    replacement: REDACTED,
  },
  {
    name: 'AWS secret access key (40 characters of base64 with upper case, lower case and digits)',
    // Exactly 40 characters of [A-Za-z0-9/+] standing alone (an "=" may come before, as in key=...; none after,
    // where base64 padding would be): hex digests (no upper case), UUIDs (dashes) and
    // padded or longer base64 stay; an unpadded 40-character base64 string is taken for a key (docs/security.md).
    pattern:
      /(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    replacement: REDACTED,
  },
  {
    name: 'Slack token (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-)',
    pattern: /(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}/g,
    replacement: REDACTED,
  },
  {
    name: 'Google API key (AIza)',
    pattern: /(?<![A-Za-z0-9])AIza[A-Za-z0-9_-]{30,}/g,
    replacement: REDACTED,
  },
  {
    name: 'Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, rk_test_)',
    pattern: /(?<![A-Za-z0-9])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
    replacement: REDACTED,
  },
  {
    name: 'JSON Web Token (eyJ....eyJ....)',
    pattern: /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
    replacement: REDACTED,
  },
  {
    name: 'Bearer token',
    // RFC 6750 b64token; a token must hold a digit or symbol, or be 16+ letters, so prose ("bearer bonds") stays.
    pattern: /\b(bearer\s+)(?=[A-Za-z0-9._~+/-]{0,256}[0-9._~+/-]|[A-Za-z]{16})[A-Za-z0-9._~+/-]{8,}=*/gi,
    replacement: `$1${REDACTED}`,
  },
  {
    name: 'secret assignment (password=, passwd=, secret=, token=, api_key=, apikey=, access_key=, private_key=)',
    // The key and separator stay so the reader still sees which setting leaked; quotes are kept too.
    pattern:
      /((?:(?:password|passwd|passphrase|secret(?!_in_path\b)|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key)(?:[_-]?[A-Za-z0-9]){0,24}|token)["']?\s*[:=]\s*)(?!\\?\[REDACTED\])(\\"[^"\n]{0,1024}?\\"|"[^"\n]*"|'[^'\n]*'|[^\s"'&,;)}\]]+)/gi,
    replacement: (_match, key = '', value = '') => key + quoteLike(value),
  },
];

/** Names of the credential shapes that `redactSecrets` replaces, in the order they are applied. */
export const SECRET_PATTERN_NAMES: readonly string[] = Object.freeze(SECRET_PATTERNS.map(({ name }) => name));

/** A credential found in a text: which family it belongs to (never the secret itself). */
export interface FoundSecret {
  /** The pattern's name, safe to print: "GitHub token (ghp_, ...)". */
  readonly family: string;
}

/** The first credential-looking substring of `text` (the same patterns as {@link redactSecrets}), or undefined. */
export function findSecret(text: string): FoundSecret | undefined {
  for (const { name, pattern } of SECRET_PATTERNS) {
    // The patterns are global: a fresh lastIndex makes test() look from the start every time.
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    if (found) return { family: name };
  }
  return undefined;
}

/** True when `text` holds a credential that {@link redactSecrets} would replace. */
export function holdsSecret(text: string): boolean {
  return findSecret(text) !== undefined;
}

/** Replaces every credential-looking substring of `text` (API keys, tokens, passwords, private keys) with `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let redacted = text;
  for (const { pattern, replacement } of SECRET_PATTERNS) {
    redacted =
      typeof replacement === 'string'
        ? redacted.replace(pattern, replacement)
        : redacted.replace(pattern, replacement);
  }
  return redacted;
}

/** `[REDACTED]`, wrapped in the quotes the original value had. */
function quoteLike(value: string): string {
  // A value quoted inside a JSON string keeps its escaped quotes: \"[REDACTED]\".
  if (value.startsWith('\\"')) return `\\"${REDACTED}\\"`;
  const quote = value.startsWith('"') || value.startsWith("'") ? value.charAt(0) : '';
  return `${quote}${REDACTED}${quote}`;
}
