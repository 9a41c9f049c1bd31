import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/project/index.js';

// A corpus of secret shapes and of look-alikes that must survive, generated from a fixed seed so every run
// sees the same strings (and no real-looking key is written into this file for scanners to flag).

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(20261122);
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';

function pick(alphabet: string, length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1)
    text += alphabet.charAt(Math.floor(next() * alphabet.length));
  return text;
}

/** Random text from `alphabet` that holds at least one upper-case letter, one lower-case letter and one digit. */
function mixed(alphabet: string, length: number): string {
  return pick(UPPER, 1) + pick(LOWER, 1) + pick(DIGITS, 1) + pick(alphabet, length - 3);
}

/** Each family: a name and how to make one secret (the part that must never survive redaction). */
const FAMILIES: readonly (readonly [string, () => string])[] = [
  ['GitHub ghp_', () => `ghp_${mixed(ALNUM, 36)}`],
  ['GitHub gho_/ghs_/ghu_/ghr_', () => `gh${pick('osur', 1)}_${mixed(ALNUM, 36)}`],
  ['GitHub fine-grained PAT', () => `github_pat_${mixed(ALNUM + '_', 82)}`],
  ['GitLab PAT', () => `glpat-${mixed(ALNUM + '_-', 20)}`],
  [
    'Slack bot/user token',
    () => `xox${pick('bpa', 1)}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${mixed(ALNUM, 24)}`,
  ],
  [
    'AWS access key id',
    () => `${pick(['AKIA', 'ASIA'].join(''), 0)}${next() < 0.5 ? 'AKIA' : 'ASIA'}${pick(UPPER + DIGITS, 16)}`,
  ],
  ['AWS secret access key', () => mixed(ALNUM + '/+', 40)],
  ['GCP API key', () => `AIza${mixed(ALNUM + '_-', 35)}`],
  ['Azure / generic secret= pair', () => `AccountKey=${mixed(ALNUM + '/+', 86)}==`],
  ['OpenAI project key', () => `sk-proj-${mixed(ALNUM + '_-', 120)}`],
  ['OpenAI legacy key', () => `sk-${mixed(ALNUM, 48)}`],
  ['Anthropic key', () => `sk-ant-api03-${mixed(ALNUM + '_-', 93)}AA`],
  ['Stripe secret key', () => `sk_live_${mixed(ALNUM, 24)}`],
  ['Stripe restricted key', () => `rk_${next() < 0.5 ? 'live' : 'test'}_${mixed(ALNUM, 24)}`],
  ['npm token', () => `npm_${mixed(ALNUM, 36)}`],
  ['JWT', () => `eyJ${mixed(ALNUM + '_-', 30)}.eyJ${mixed(ALNUM + '_-', 60)}.${mixed(ALNUM + '_-', 43)}`],
  ['password= pair', () => `password=${mixed(ALNUM + '!@#%^*', 14)}`],
  ['PASSWORD_x= pair', () => `DB_PASSWORD_${pick(UPPER, 3)}=${mixed(ALNUM, 16)}`],
  ['token= pair', () => `token=${mixed(ALNUM, 20)}`],
  ['api_key: pair', () => `api_key: "${mixed(ALNUM + '-', 24)}"`],
];

/** Where a secret may stand: in content, a path, a document name, an id, JSON, a header. */
const CONTEXTS: readonly (readonly [string, (secret: string) => string])[] = [
  ['content', (secret) => `export KEY ${secret}\n`],
  ['a path after "_"', (secret) => `docs/run_${secret}.md`],
  ['a path after "/"', (secret) => `workspace/${secret}/config.json`],
  ['a name after "-"', (secret) => `node-${secret}`],
  ['an id after "k_"', (secret) => `k_${secret}`],
  ['JSON', (secret) => JSON.stringify({ message: `failed with ${secret}` })],
  ['a YAML value', (secret) => `env:\n  KEY: ${secret}\n`],
  ['a URL query', (secret) => `https://api.example.com/v1?key=1&x=${secret}&y=2`],
  ['a command line', (secret) => `curl -H "X-Key: ${secret}" https://example.com`],
  ['a markdown code span', (secret) => `set \`${secret}\` in your shell`],
  ['an error message', (secret) => `Error: request failed (${secret}): 401`],
];

/** The value part of a secret: what must be gone (for a key=value pair, the value). */
function valueOf(secret: string): string {
  const match = /^[^=:]*[=:]\s*"?([^"]+)"?$/.exec(secret);
  return match?.[1] ?? secret;
}

// The one shape redaction cannot tell apart inside a path: a bare AWS secret holds "/" itself, so as a path
// segment it cannot be told from the path around it. A secret in a path is for the path rules to refuse.
const UNREDACTABLE = new Set(['AWS secret access key in a path after "/"']);

const SECRETS = FAMILIES.flatMap(([family, make]) =>
  CONTEXTS.filter(([context]) => !UNREDACTABLE.has(`${family} in ${context}`)).map(([context, place]) => {
    const secret = make();
    return { name: `${family} in ${context}`, text: place(secret), value: valueOf(secret) };
  }),
);

const LOOK_ALIKES: readonly (readonly [string, () => string])[] = [
  ['sha1 hex', () => pick(HEX, 40)],
  ['sha256 hex', () => pick(HEX, 64)],
  ['sha256: content hash', () => `sha256:${pick(HEX, 64)}`],
  ['git short sha', () => pick(HEX, 12)],
  ['UUID', () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`],
  ['padded base64', () => `${mixed(ALNUM + '/+', 42)}==`],
  ['long base64 test data', () => mixed(ALNUM + '/+', 120)],
  ['short base64', () => mixed(ALNUM + '/+', 24)],
  ['npm integrity', () => `sha512-${mixed(ALNUM + '/+', 86)}==`],
  ['artifact id', () => `art-${pick(HEX, 12)}`],
  ['run id', () => `team-2026${pick(DIGITS, 4)}T${pick(DIGITS, 6)}${pick(DIGITS, 3)}Z`],
  ['object path', () => `.agent/objects/sha256/${pick(HEX, 2)}/${pick(HEX, 62)}`],
  ['token count', () => `token_count=${pick(DIGITS, 3)} tokens_used=${pick(DIGITS, 2)}`],
  ['kebab task name', () => `task-${pick(LOWER, 6)}-${pick(LOWER, 8)}`],
  ['sk- in a word', () => `disk-${pick(LOWER, 10)}-usage`],
  ['prose', () => `the ${pick(LOWER, 5)} token is missing; pass a password with --password-file`],
  ['ISO timestamp', () => `2026-11-${pick('12', 1)}${pick(DIGITS, 1)}T${pick(DIGITS, 2)}:00:00.000Z`],
  ['file path', () => `workspace/src/${pick(LOWER, 8)}/${pick(LOWER, 6)}.ts`],
  ['hex color list', () => `#${pick(HEX, 6)} #${pick(HEX, 6)}`],
  ['semver range', () => `^${pick(DIGITS, 1)}.${pick(DIGITS, 2)}.${pick(DIGITS, 1)}`],
];

const KEPT = LOOK_ALIKES.flatMap(([family, make]) =>
  Array.from({ length: 10 }, (_, index) => {
    const text = make();
    return { name: `${family} #${String(index + 1)}`, text };
  }),
);

describe('redactSecrets on a corpus of secret shapes', () => {
  it('holds at least 200 secrets and 200 look-alikes', () => {
    expect(SECRETS.length).toBeGreaterThanOrEqual(200);
    expect(KEPT.length).toBeGreaterThanOrEqual(200);
  });

  it.each(SECRETS)('redacts $name', ({ text, value }) => {
    const output = redactSecrets(text);
    expect(output).not.toContain(value);
    expect(output).toContain(REDACTED);
  });

  it.each(KEPT)('keeps $name', ({ text }) => {
    expect(redactSecrets(text)).toBe(text);
  });
});
