import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findSecret,
  holdsSecret,
  REDACTED,
  redactSecrets,
  SECRET_PATTERN_NAMES,
} from '../../src/project/index.js';

// Realistic shapes with random bodies, assembled at run time so secret scanners do not flag this file.
const join = (...parts: string[]): string => parts.join('');
const TOKENS = {
  openaiLegacy: join('sk-', 'DYJLm42l5HobNDZ6OQe0', 'T3BlbkFJ', 'lbeQC9XnQ5Hma7CdN2KF'),
  openaiProject: join(
    'sk-proj-',
    'GSvyoRClmTEEBHSFSdttcFg_1MXrqCiPYdnpzz-OOLedJ_xd1yRPfJS4ov',
    'T3BlbkFJ',
    'v0F0cTvASxLlkREWFrlmmObPLVIwZtq0WD_aeCFv8rqozUDl3dz95Ss9Xt',
  ),
  anthropic: join(
    'sk-ant-',
    'api03-I6Zi4Q5LiXg6jh-o-Q6wG4jUjjZGi8IgjEAAXQeg3TtyOabxPNK3yR4Zt5b-N4ph6zMV_6NZoKuYGqNfJsT65cYbCCJk_AA',
  ),
  ghp: join('ghp_', 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR'),
  gho: join('gho_', 'a7vvVardzVF6jSOnwEWA89Tp4Lb2hio1jxAs'),
  ghu: join('ghu_', 'RHcGrJGdD40fNhPDnfbY1FEkc11s3yLrdgP3'),
  ghs: join('ghs_', 'b4Wu0psCxrs38kZhuIrQH7lfgaQiA15lJay1'),
  ghr: join('ghr_', 'GK947coEugfDvgfKW5kE0a8THrtlP9mcZbF7'),
  githubPat: join(
    'github_pat_',
    '11MLSNNK905WDY0CTT2IVP_uDvBzTXotvIi6VcORfal47B5f0g7E3bGEzLLTCLMuCvPZj6F9QFTXfhsXep',
  ),
  gitlab: join('glpat-', 'CuNM_AXvazsrkb5ozdz8'),
  npm: join('npm_', 'Umh1kzteX0bP226r5hWF6OJdQqET5KwR51kR'),
  awsAkia: join('AKIA', 'IOSFODNN7EXAMPLE'),
  awsAsia: join('ASIA', '2ZMV5M6CZ6PKHOZI'),
  awsSecret: join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY'),
  slackBot: join('xoxb-', '871545701822-4395208839513-31HG4VC3PNUFSXgO2XUCd639'),
  slackUser: join('xoxp-', '852268024784-151139654046-1030272724516-5a0388046548456823c2049146921b03'),
  google: join('AIza', 'P6zVI8EfacTorjCEHpTtIxnuGMipUM3gi4D'),
  stripeSecret: join('sk_live_', 'SYCw5tnSFVmPmJYtBQ8lFAQc'),
  stripeRestricted: join('rk_live_', 't0Fjoegia1Wdl4qssF0tEvr6'),
  jwt: join(
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
    '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
    '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  ),
  opaque: join('0b79bab50daca910b000', 'd4f1a2b675d604257e42'),
  pemBody: join(
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n',
    'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n',
  ),
};

const PEM = join('-----BEGIN PRIVATE KEY-----\n', TOKENS.pemBody, '-----END PRIVATE KEY-----');
const RSA_PEM = join('-----BEGIN RSA PRIVATE KEY-----\n', TOKENS.pemBody, '-----END RSA PRIVATE KEY-----');

/** [name, input, expected output, secret that must be gone]. */
const REDACTED_CASES: readonly (readonly [string, string, string, string])[] = [
  [
    'OpenAI legacy key',
    `OPENAI key ${TOKENS.openaiLegacy} rejected`,
    `OPENAI key ${REDACTED} rejected`,
    TOKENS.openaiLegacy,
  ],
  ['OpenAI project key', `key=${TOKENS.openaiProject}`, `key=${REDACTED}`, TOKENS.openaiProject],
  ['Anthropic key', `x-api-key: ${TOKENS.anthropic}`, `x-api-key: ${REDACTED}`, TOKENS.anthropic],
  ['GitHub ghp_', `clone failed for ${TOKENS.ghp}`, `clone failed for ${REDACTED}`, TOKENS.ghp],
  ['GitHub gho_', `"${TOKENS.gho}"`, `"${REDACTED}"`, TOKENS.gho],
  ['GitHub ghu_', `(${TOKENS.ghu})`, `(${REDACTED})`, TOKENS.ghu],
  ['GitHub ghs_', `GH_TOKEN ${TOKENS.ghs}`, `GH_TOKEN ${REDACTED}`, TOKENS.ghs],
  ['GitHub ghr_', `refresh ${TOKENS.ghr}.`, `refresh ${REDACTED}.`, TOKENS.ghr],
  ['GitHub fine-grained PAT', `pat ${TOKENS.githubPat}`, `pat ${REDACTED}`, TOKENS.githubPat],
  ['GitLab token', `glab ${TOKENS.gitlab}`, `glab ${REDACTED}`, TOKENS.gitlab],
  ['npm token', `//registry/:_authToken ${TOKENS.npm}`, `//registry/:_authToken ${REDACTED}`, TOKENS.npm],
  ['AWS AKIA key id', `aws_access_key_id ${TOKENS.awsAkia}`, `aws_access_key_id ${REDACTED}`, TOKENS.awsAkia],
  ['AWS ASIA key id', `[${TOKENS.awsAsia}]`, `[${REDACTED}]`, TOKENS.awsAsia],
  [
    'AWS secret assignment',
    `aws_secret_access_key=${TOKENS.awsSecret}`,
    `aws_secret_access_key=${REDACTED}`,
    TOKENS.awsSecret,
  ],
  [
    'AWS secret in env style',
    `AWS_SECRET_ACCESS_KEY="${TOKENS.awsSecret}" make deploy`,
    `AWS_SECRET_ACCESS_KEY="${REDACTED}" make deploy`,
    TOKENS.awsSecret,
  ],
  ['Slack bot token', `slack ${TOKENS.slackBot}`, `slack ${REDACTED}`, TOKENS.slackBot],
  ['Slack user token', `slack ${TOKENS.slackUser}`, `slack ${REDACTED}`, TOKENS.slackUser],
  [
    'Google API key',
    `GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${TOKENS.google}`,
    `GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${REDACTED}`,
    TOKENS.google,
  ],
  ['Stripe secret key', `stripe ${TOKENS.stripeSecret}`, `stripe ${REDACTED}`, TOKENS.stripeSecret],
  [
    'Stripe restricted key',
    `stripe ${TOKENS.stripeRestricted}`,
    `stripe ${REDACTED}`,
    TOKENS.stripeRestricted,
  ],
  ['JWT', `session ${TOKENS.jwt} expired`, `session ${REDACTED} expired`, TOKENS.jwt],
  ['Bearer token', `curl -H "X: Bearer ${TOKENS.opaque}"`, `curl -H "X: Bearer ${REDACTED}"`, TOKENS.opaque],
  [
    'Authorization header',
    `Authorization: Basic dXNlcjpwYXNzd29yZA==`,
    `Authorization: ${REDACTED}`,
    'dXNlcjpwYXNzd29yZA==',
  ],
  [
    'Authorization header with a JWT',
    `authorization=Bearer ${TOKENS.jwt}`,
    `authorization=${REDACTED}`,
    TOKENS.jwt,
  ],
  ['PEM private key', `key:\n${PEM}\nend`, `key:\n${REDACTED}\nend`, TOKENS.pemBody],
  ['PEM RSA private key', RSA_PEM, REDACTED, TOKENS.pemBody],
  ['truncated PEM block', `-----BEGIN EC PRIVATE KEY-----\n${TOKENS.pemBody}`, REDACTED, TOKENS.pemBody],
  [
    'URL userinfo',
    'fetch postgres://admin:s3cr3t-Pa55@db.example.com:5432/app failed',
    `fetch postgres://${REDACTED}@db.example.com:5432/app failed`,
    's3cr3t-Pa55',
  ],
  [
    'URL userinfo with an empty user',
    'redis://:hunter22@cache:6379/0',
    `redis://${REDACTED}@cache:6379/0`,
    'hunter22',
  ],
  ['password=', 'login password=hunter2 failed', `login password=${REDACTED} failed`, 'hunter2'],
  ['passwd=', 'DB_PASSWD=Tr0ub4dor3 ./migrate', `DB_PASSWD=${REDACTED} ./migrate`, 'Tr0ub4dor3'],
  ['secret=', 'client_secret=abc123def&grant=x', `client_secret=${REDACTED}&grant=x`, 'abc123def'],
  ['token= in a query string', '/cb?token=a1b2c3d4&state=ok', `/cb?token=${REDACTED}&state=ok`, 'a1b2c3d4'],
  ['api_key=', 'api_key = "live-key-value"', `api_key = "${REDACTED}"`, 'live-key-value'],
  ['apikey:', "apikey: 'k-998877'", `apikey: '${REDACTED}'`, 'k-998877'],
  // The shapes issue 11's attack run found leaking.
  [
    'a GitHub token after "_" in a document name',
    `wrote docs/run_${TOKENS.ghp}.md`,
    `wrote docs/run_${REDACTED}.md`,
    TOKENS.ghp,
  ],
  ['an OpenAI key after "k_"', `k_${TOKENS.openaiLegacy}`, `k_${REDACTED}`, TOKENS.openaiLegacy],
  ['an OpenAI key after "k-"', `k-${TOKENS.openaiLegacy}`, `k-${REDACTED}`, TOKENS.openaiLegacy],
  ['a project key after "x"', `x${TOKENS.openaiProject}`, `x${REDACTED}`, TOKENS.openaiProject],
  ['PASSWORD_x=', 'PASSWORD_x=Tr0ub4dor3 ./migrate', `PASSWORD_x=${REDACTED} ./migrate`, 'Tr0ub4dor3'],
  ['a bare AWS secret access key', `key ${TOKENS.awsSecret} set`, `key ${REDACTED} set`, TOKENS.awsSecret],
  [
    'a JSON-escaped quoted value',
    '{"message":"api_key: \\"k-998877\\""}',
    `{"message":"api_key: \\"${REDACTED}\\""}`,
    'k-998877',
  ],
  [
    'JSON password',
    '{"password":"hunter2","user":"bob"}',
    `{"password":"${REDACTED}","user":"bob"}`,
    'hunter2',
  ],
];

const KEPT_CASES: readonly (readonly [string, string])[] = [
  ['ordinary path', 'workspace/src/secret-sauce/token-auth.ts'],
  // Our own reason code before its message: `secret_in_path: file= path holds ...` must stay readable.
  ['the secret_in_path reason', 'secret_in_path: file= path holds what looks like a credential'],
  ['the secret_in_path code in JSON', '{"code":"secret_in_path","message":"the document path holds"}'],
  ['docs path', 'docs/guide/setup-token-auth.md'],
  ['kebab-case sk- name', 'workspace/sk-learn-notes/readme.md'],
  ['word ending in sk', 'task-runner-configuration-file.yaml'],
  ['a=b in prose', 'set a=b and then c = d + 1 in the formula'],
  ['sha256 digest', 'sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  [
    'object store path',
    '.agent/objects/sha256/e3/b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  ],
  ['UUID', 'run 123e4567-e89b-12d3-a456-426614174000 finished'],
  ['token count field', 'token_count=512 tokens_used=7'],
  ['prose about bearer tokens', 'the bearer token is missing; pass one with --token'],
  ['prose about passwords', 'passwords must match and the secret of success is patience'],
  ['URL without password', 'ssh://git@github.com/org/repo.git and git@github.com:org/repo.git'],
  ['URL with a port', 'http://localhost:8080/path@v1?ref=main'],
  ['event name', 'ingest.block ingest.summary'],
  ['a reason code', 'traversal: file= path contains a ".." segment; paths must stay inside workspace/'],
  ['a JWT header alone', 'eyJhbGciOiJIUzI1NiJ9 is only a header'],
  ['ASIA in a word', 'ASIAN markets and AKIA alone'],
];

describe('redactSecrets', () => {
  it.each(REDACTED_CASES)('redacts %s', (_name, input, expected, secret) => {
    const output = redactSecrets(input);
    expect(output).toBe(expected);
    expect(output).not.toContain(secret);
  });

  it.each(KEPT_CASES)('keeps %s', (_name, input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  it('covers every pattern it documents with at least 15 table rows', () => {
    expect(REDACTED_CASES.length).toBeGreaterThanOrEqual(15);
    expect(SECRET_PATTERN_NAMES.length).toBeGreaterThanOrEqual(14);
  });

  it('redacts every secret when several share one message', () => {
    const input = Object.values(TOKENS)
      .filter((token) => !token.includes('\n'))
      .map((token, index) => `part${String(index)} ${token}`)
      .join(' | ');
    const output = redactSecrets(input);
    for (const token of Object.values(TOKENS)) {
      if (!token.includes('\n') && token !== TOKENS.opaque) {
        expect(output).not.toContain(token);
      }
    }
  });

  it('is idempotent: redacting twice changes nothing more', () => {
    const fragments = [...REDACTED_CASES.map(([, input]) => input), ...KEPT_CASES.map(([, input]) => input)];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...fragments)),
        fc.constantFrom(' ', '\n', '', '=', ':'),
        (parts, glue) => {
          const once = redactSecrets(parts.join(glue));
          expect(redactSecrets(once)).toBe(once);
        },
      ),
    );
  });

  // Time is measured in `npm run bench` (t(2n)/t(n) per input, test/bench/hostile-inputs.ts); here, the result.
  it.each([
    ['sk- repeated', 'sk-'.repeat(200_000), null],
    ['a. repeated', 'a.'.repeat(300_000), null],
    ['a URL of a: pairs', `x://${'a:'.repeat(300_000)}`, null],
    ['a megabyte bearer token', `Bearer ${'A'.repeat(600_000)}`, `Bearer ${REDACTED}`],
    ['eyJ repeated', 'eyJ'.repeat(200_000), null],
    ['a megabyte password', `password=${'p'.repeat(600_000)}`, `password=${REDACTED}`],
    ['unterminated PEM headers', '-----BEGIN PRIVATE KEY-----'.repeat(20_000), REDACTED],
  ])('redacts hostile input (%s) to its exact result', (_name, text, expected) => {
    expect(redactSecrets(text)).toBe(expected ?? text);
  });
});

describe('findSecret and holdsSecret', () => {
  // A bearer token's or a PEM block's body is a secret only in its context ("Bearer ...", the BEGIN line).
  const standalone = Object.entries(TOKENS).filter(([name]) => name !== 'opaque' && name !== 'pemBody');

  it.each(standalone)('finds the %s token and names its family, not the secret', (_name, token) => {
    const found = findSecret(`prefix ${token} suffix`);
    expect(found?.family).toBeDefined();
    expect(SECRET_PATTERN_NAMES).toContain(found?.family);
    expect(found?.family).not.toContain(token);
    expect(holdsSecret(token)).toBe(true);
  });

  it.each([
    ['a sha256 hex digest', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a UUID', '3f2a9c1e-7b4d-4e8a-9f01-2b3c4d5e6f70'],
    ['a redacted text', 'password=[REDACTED] and [REDACTED]'],
    ['a plain path', 'src/auth/token.ts'],
  ])('finds nothing in %s', (_name, text) => {
    expect(findSecret(text)).toBeUndefined();
    expect(holdsSecret(text)).toBe(false);
  });

  it('agrees with redactSecrets and gives the same answer when asked twice', () => {
    for (const [, token] of standalone) {
      expect(holdsSecret(token)).toBe(redactSecrets(token) !== token);
      expect(holdsSecret(token)).toBe(true);
    }
  });
});
