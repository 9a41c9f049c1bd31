import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDeclaredPath,
  MAX_COMPONENT_BYTES,
  MAX_PATH_BYTES,
} from '../../src/workspace/paths/path-rules.js';
import type { PathRuleCode } from '../../src/workspace/write-outcome.js';

/** A path of exactly `bytes` UTF-8 bytes made of 99-byte components. */
function pathOfBytes(bytes: number): string {
  const components: string[] = [];
  let remaining = bytes;
  while (remaining > 100) {
    components.push('d'.repeat(99));
    remaining -= 100;
  }
  components.push('f'.repeat(remaining));
  return components.join('/');
}

const accepted: readonly (readonly [declared: string, normalized: string])[] = [
  ['a.txt', 'a.txt'],
  ['src/index.ts', 'src/index.ts'],
  ['./a', 'a'],
  ['a//b', 'a/b'],
  ['./src/./x.ts', 'src/x.ts'],
  ['a/./b', 'a/b'],
  ['.//a///b', 'a/b'],
  ['a..b.txt', 'a..b.txt'],
  ['[...slug].tsx', '[...slug].tsx'],
  ['app/[...slug]/page.tsx', 'app/[...slug]/page.tsx'],
  ['app/(group)/page.tsx', 'app/(group)/page.tsx'],
  ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
  ['%2e%2e/x', '%2e%2e/x'],
  ['%2F/x', '%2F/x'],
  ['a%00b', 'a%00b'],
  ['.env', '.env'],
  ['src/.gitignore', 'src/.gitignore'],
  ['.gitkeep', '.gitkeep'],
  ['.gitmodules', '.gitmodules'],
  ['.gitattributes', '.gitattributes'],
  ['.git-hooks/x', '.git-hooks/x'],
  ['git/x', 'git/x'],
  ['git~2', 'git~2'],
  ['a b.txt', 'a b.txt'],
  [' lead.txt', ' lead.txt'],
  ['café.txt', 'café.txt'],
  ['cafe\u0301.txt', 'cafe\u0301.txt'],
  ['日本語/ファイル.md', '日本語/ファイル.md'],
  ['emoji-😀.txt', 'emoji-😀.txt'],
  ['console.log.ts', 'console.log.ts'],
  ['CONTRIBUTING.md', 'CONTRIBUTING.md'],
  ['com10.txt', 'com10.txt'],
  ['auxiliary.ts', 'auxiliary.ts'],
  ['nul-device.md', 'nul-device.md'],
  ['-rf', '-rf'],
  ['~/x', '~/x'],
  ['...a', '...a'],
  ["it's.txt", "it's.txt"],
  ['@scope/pkg/index.js', '@scope/pkg/index.js'],
  ['a;b&c#d.txt', 'a;b&c#d.txt'],
  ['.a/.b/.c', '.a/.b/.c'],
  ['a'.repeat(MAX_COMPONENT_BYTES), 'a'.repeat(MAX_COMPONENT_BYTES)],
  ['é'.repeat(127) + 'a', 'é'.repeat(127) + 'a'],
  ['😀'.repeat(63) + 'abc', '😀'.repeat(63) + 'abc'],
  [pathOfBytes(MAX_PATH_BYTES), pathOfBytes(MAX_PATH_BYTES)],
];

const refused: readonly (readonly [declared: string, code: PathRuleCode])[] = [
  // Empty, or naming a directory rather than a file.
  ['', 'empty_path'],
  ['.', 'empty_path'],
  ['./', 'empty_path'],
  ['./.', 'empty_path'],
  ['.//', 'empty_path'],
  ['a/', 'empty_path'],
  ['a/b/', 'empty_path'],
  ['a/.', 'empty_path'],
  // Control characters (C0, DEL, C1).
  ['a\u0000b', 'control_char'],
  ['a\nb', 'control_char'],
  ['a\r.txt', 'control_char'],
  ['a\tb', 'control_char'],
  ['\u001f', 'control_char'],
  ['a\u007fb', 'control_char'],
  ['a\u0085b', 'control_char'],
  ['a\u009fb', 'control_char'],
  ['../\u0000', 'control_char'],
  // Broken, invisible and lookalike Unicode.
  ['\ud800.txt', 'invalid_unicode'],
  ['a\udc00', 'invalid_unicode'],
  ['a\ufffd.txt', 'invalid_unicode'],
  ['a\ufdd0', 'invalid_unicode'],
  ['a\ufffe', 'invalid_unicode'],
  ['a\u{1ffff}', 'invalid_unicode'],
  ['a\u200bb', 'invalid_unicode'],
  ['a\u200db', 'invalid_unicode'],
  ['a\ufeffb', 'invalid_unicode'],
  ['a\u00adb', 'invalid_unicode'],
  ['a\u034fb', 'invalid_unicode'],
  ['\u202etxt.exe', 'invalid_unicode'],
  ['a\u2066b', 'invalid_unicode'],
  ['.\u200bgit/config', 'invalid_unicode'],
  ['a\uff0fb', 'invalid_unicode'],
  ['\uff0e\uff0e/x', 'invalid_unicode'],
  ['\u2024\u2024/x', 'invalid_unicode'],
  ['\u2025/x', 'invalid_unicode'],
  ['a\u2026', 'invalid_unicode'],
  ['a\ufe52txt', 'invalid_unicode'],
  ['C\uff1ax', 'invalid_unicode'],
  ['a\ufe55b', 'invalid_unicode'],
  ['a\uff3cb', 'invalid_unicode'],
  ['a\ufe68b', 'invalid_unicode'],
  ['a\u2215b', 'invalid_unicode'],
  ['a\u2044b', 'invalid_unicode'],
  ['a\u00a0b', 'invalid_unicode'],
  ['a\u3000b', 'invalid_unicode'],
  ['a\u2028b', 'invalid_unicode'],
  ['a\u1680b', 'invalid_unicode'],
  ['\u2488txt', 'invalid_unicode'],
  ['\uff0f..\uff0fx', 'invalid_unicode'],
  // UNC and device namespace paths.
  ['\\\\server\\share\\x', 'unc_path'],
  ['//server/share/x', 'unc_path'],
  ['\\\\?\\C:\\x', 'unc_path'],
  ['//?/C:/x', 'unc_path'],
  ['\\\\.\\COM1', 'unc_path'],
  ['//./pipe/x', 'unc_path'],
  ['\\/x', 'unc_path'],
  ['/\\x', 'unc_path'],
  ['//x', 'unc_path'],
  ['\\\\..\\x', 'unc_path'],
  // Drive letters.
  ['C:\\x', 'drive_letter'],
  ['C:/x', 'drive_letter'],
  ['c:/Windows/x', 'drive_letter'],
  ['Z:\\', 'drive_letter'],
  ['C:\\..', 'drive_letter'],
  // Absolute paths.
  ['/etc/passwd', 'absolute_path'],
  ['/a', 'absolute_path'],
  ['/', 'absolute_path'],
  ['\\x', 'absolute_path'],
  ['/../x', 'absolute_path'],
  ['/./a', 'absolute_path'],
  // Backslashes anywhere else.
  ['a\\b', 'backslash'],
  ['dir\\file.txt', 'backslash'],
  ['..\\x', 'backslash'],
  ['a\\..\\b', 'backslash'],
  // Colons: drive-relative, NTFS streams, URL schemes.
  ['C:x', 'colon'],
  ['C:', 'colon'],
  ['a.txt:stream', 'colon'],
  ['x::$DATA', 'colon'],
  ['.git::$INDEX_ALLOCATION/x', 'colon'],
  ['http://example.com/x', 'colon'],
  ['file:x', 'colon'],
  ['a:b/c', 'colon'],
  // Traversal, even when it would stay inside.
  ['..', 'traversal'],
  ['../x', 'traversal'],
  ['a/../b', 'traversal'],
  ['a/b/../', 'traversal'],
  ['./..', 'traversal'],
  ['a/..', 'traversal'],
  ['..//x', 'traversal'],
  ['../../etc/passwd', 'traversal'],
  ['%2e%2e/../x', 'traversal'],
  ['../CON', 'traversal'],
  ['../.git', 'traversal'],
  // Byte-length limits.
  ['a'.repeat(MAX_COMPONENT_BYTES + 1), 'too_long'],
  ['é'.repeat(128), 'too_long'],
  ['😀'.repeat(64), 'too_long'],
  ['d/' + 'a'.repeat(256) + '/x', 'too_long'],
  ['a'.repeat(256) + '/.git', 'too_long'],
  [pathOfBytes(MAX_PATH_BYTES + 1), 'too_long'],
  // The git directory, compared after case folding and NTFS trimming.
  ['.git', 'git_dir'],
  ['.git/config', 'git_dir'],
  ['.GIT/hooks/pre-commit', 'git_dir'],
  ['.Git', 'git_dir'],
  ['a/.git/x', 'git_dir'],
  ['.git./x', 'git_dir'],
  ['.git ', 'git_dir'],
  ['.git. .', 'git_dir'],
  ['git~1/config', 'git_dir'],
  ['GIT~1', 'git_dir'],
  ['.g\u0131t/config', 'git_dir'],
  ['.\uff47\uff49\uff54/config', 'git_dir'],
  ['CON/.git', 'git_dir'],
  // Windows reserved names and characters.
  ['CON', 'reserved_name'],
  ['con.txt', 'reserved_name'],
  ['Con.tar.gz', 'reserved_name'],
  ['NUL', 'reserved_name'],
  ['nul.js', 'reserved_name'],
  ['PRN.md', 'reserved_name'],
  ['AUX', 'reserved_name'],
  ['x/aux.h', 'reserved_name'],
  ['COM1', 'reserved_name'],
  ['com9.log', 'reserved_name'],
  ['LPT1.txt', 'reserved_name'],
  ['lpt9', 'reserved_name'],
  ['COM\u00b9.txt', 'reserved_name'],
  ['LPT\u00b3', 'reserved_name'],
  ['CONIN$', 'reserved_name'],
  ['conout$.txt', 'reserved_name'],
  ['CON .txt', 'reserved_name'],
  ['NUL  .c', 'reserved_name'],
  ['src/CON/x.ts', 'reserved_name'],
  ['\uff23\uff2f\uff2e.txt', 'reserved_name'],
  ['a.', 'reserved_name'],
  ['a ', 'reserved_name'],
  ['...', 'reserved_name'],
  ['dir./x', 'reserved_name'],
  ['a<b', 'reserved_name'],
  ['a>b', 'reserved_name'],
  ['a"b', 'reserved_name'],
  ['a|b', 'reserved_name'],
  ['a?b', 'reserved_name'],
  ['a*b', 'reserved_name'],
];

function label(text: string): string {
  const shown = JSON.stringify(text);
  return shown.length > 50 ? `${shown.slice(0, 47)}...` : shown;
}

describe('checkDeclaredPath', () => {
  it('has a table of at least 100 rows', () => {
    expect(accepted.length + refused.length).toBeGreaterThanOrEqual(100);
  });

  it.each(accepted.map(([declared, normalized]) => [label(declared), declared, normalized] as const))(
    'accepts %s',
    (_, declared, normalized) => {
      expect(checkDeclaredPath(declared)).toEqual({ ok: true, path: normalized });
    },
  );

  it.each(refused.map(([declared, code]) => [label(declared), code, declared] as const))(
    'refuses %s with %s',
    (_, code, declared) => {
      const verdict = checkDeclaredPath(declared);
      expect(verdict.ok ? undefined : verdict.code).toBe(code);
    },
  );

  it("says what to fix when a path has a '..' segment", () => {
    expect(checkDeclaredPath('a/../b')).toEqual({
      ok: false,
      code: 'traversal',
      message: "file= path contains a '..' segment; paths must stay inside workspace/",
    });
  });

  it('names the offending code point of invalid Unicode', () => {
    const verdict = checkDeclaredPath('a\uff0fb');
    expect(verdict.ok ? '' : verdict.message).toContain('U+FF0F');
  });

  it('keeps accepted paths as fixed points: normalizing again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (declared) => {
        const verdict = checkDeclaredPath(declared);
        if (!verdict.ok) return;
        expect(checkDeclaredPath(verdict.path)).toEqual(verdict);
        expect(verdict.path.split('/')).not.toContain('..');
        expect(verdict.path.startsWith('/')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('never accepts a path with a traversal segment, whatever surrounds it', () => {
    const segment = fc.constantFrom('a', '.', '..', '', 'b.txt', '.git', '%2e%2e');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const verdict = checkDeclaredPath(segments.join('/'));
        if (segments.includes('..')) expect(verdict.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

// Secret shapes assembled at run time (so scanners do not flag this file), one per family of docs/security.md.
const j = (...parts: string[]): string => parts.join('');
const SECRET_SHAPES: readonly (readonly [family: string, secret: string])[] = [
  ['GitHub classic token', j('ghp_', 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR')],
  ['GitHub fine-grained token', j('github_pat_', '11ABCDEFG0aBcDeFgHiJkLmN_oPqRsTuVwXyZ0123456789aBcDeF')],
  ['GitLab token', j('glpat-', 'xR4nd0mT0k3nV4lu3zZq')],
  ['Slack token', j('xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx')],
  ['AWS access key id', j('AKIA', 'IOSFODNN7EXAMPL3')],
  ['AWS secret access key', j('wJalrXUtnFEMIK7MDENG', 'bPxRfiCYEXAMPLEKEY12')],
  ['Google API key', j('AIza', 'SyD3m0K3yV4lu3f0rT3st1ngPurp0s3sX')],
  ['OpenAI project key', j('sk-proj-', 'GSvyoRClmTEEBHSFSdttcFg_1MXrqCiPYdnpzz')],
  ['OpenAI legacy key', j('sk-', 'DYJLm42l5HobNDZ6OQe0', 'T3BlbkFJ')],
  ['Anthropic key', j('sk-ant-', 'api03-I6Zi4Q5LiXg6jh-o-Q6wG4jUjjZGi8Igj')],
  ['Stripe key', j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
  ['npm token', j('npm_', 'aB3dEfGh1jKlMn0pQrStUvWxYz0123456789')],
  ['JWT', j('eyJ', 'hbGciOiJIUzI1NiJ9', '.eyJ', 'zdWIiOiIxMjM0In0', '.c2lnbmF0dXJl')],
  ['password= pair', j('password', '=hunter2hunter2')],
  ['token= pair', j('tok', 'en=abc123def456')],
  ['PASSWORD_x= pair', j('DB_PASSWORD', '_PRD=S3cr3tValue99')],
  ['PEM header', j('-----BEGIN RSA ', 'PRIVATE KEY-----')],
];

const SECRET_PLACES: readonly (readonly [place: string, path: (secret: string) => string])[] = [
  ['as a whole component', (secret) => `config/${secret}`],
  ["after '_'", (secret) => `docs/run_${secret}.md`],
  ["after '-'", (secret) => `notes/key-${secret}.txt`],
  ["after '.'", (secret) => `env.${secret}`],
  ['in a directory name', (secret) => `backup_${secret}/data.json`],
];

const SECRET_PATHS = SECRET_SHAPES.flatMap(([family, secret]) =>
  SECRET_PLACES.map(([place, make]) => ({ name: `${family} ${place}`, path: make(secret), secret })),
);

const HEX = '0123456789abcdef';
const LOOK_ALIKE_PATHS: readonly string[] = [
  `objects/${HEX.repeat(4)}.bin`,
  `sha256/${HEX.repeat(4)}/${HEX.repeat(4)}`,
  'cache/3f2a9c1e-7b4d-4e8a-9f01-2b3c4d5e6f70.json',
  'fixtures/dGhpcyBpcyBqdXN0IHRlc3QgZGF0YQ==.txt',
  'data/U29tZUJhc2U2NFRlc3REYXRhMTIzNDU2Nzg5MA==',
  'src/auth/token.ts',
  'docs/password-reset.md',
  'src/secret-manager/index.ts',
  'api_key_rotation.md',
  'src/tokenizer/token-count.ts',
  'docs/sk-learn-notes.md',
  'disk-usage/report.md',
  'src/Components/Button2/Stories/Primary.tsx',
  'assets/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678.png',
];

describe('checkDeclaredPath and secrets', () => {
  it('judges at least 80 secret paths', () => {
    expect(SECRET_PATHS.length).toBeGreaterThanOrEqual(80);
  });

  it.each(SECRET_PATHS)('refuses a path with a $name as secret_in_path', ({ path, secret }) => {
    const verdict = checkDeclaredPath(path);
    expect(verdict.ok ? undefined : verdict.code).toBe('secret_in_path');
    // The message names the family, never the secret: it goes into manifests and events.
    expect(verdict.ok ? '' : verdict.message).not.toContain(secret.slice(-12));
  });

  it('refuses a secret before any rule whose message would quote it', () => {
    const secret = SECRET_SHAPES[0]?.[1] ?? '';
    for (const declared of [`${'d'.repeat(300)}_${secret}`, `a/../${secret}`, `${secret}.`, `/${secret}`]) {
      const verdict = checkDeclaredPath(declared);
      expect(verdict.ok ? undefined : verdict.code).toBe('secret_in_path');
    }
  });

  it.each(LOOK_ALIKE_PATHS)('accepts the look-alike %s', (path) => {
    expect(checkDeclaredPath(path)).toEqual({ ok: true, path });
  });
});
