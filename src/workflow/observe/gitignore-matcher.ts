/**
 * The common subset of gitignore(5) that the project snapshot needs: `#` comments, `!` negation, `\` escapes of a
 * leading `#` or `!`, `/` anchoring, a trailing `/` for folders, `*`, `?`, `[...]` and `**`. Not supported:
 * nested `.gitignore` files, `.git/info/exclude` and the global excludes file (docs/workflow-observe.md).
 */

/** One compiled line of a `.gitignore`. */
interface GitignoreRule {
  readonly pattern: RegExp;
  readonly negated: boolean;
  /** A trailing `/`: the rule matches folders only. */
  readonly folderOnly: boolean;
}

/** Answers whether a project-relative path is ignored by the rules of one `.gitignore`. */
export interface GitignoreMatcher {
  /** True when `path` (POSIX, project-relative) or one of its parent folders is ignored. */
  ignores(path: string): boolean;
}

/** Compiles the text of a project's root `.gitignore` into a matcher; a line that cannot be compiled is skipped. */
export function compileGitignore(text: string): GitignoreMatcher {
  const rules = text
    .split(/\r?\n/)
    .map(compileLine)
    .filter((rule) => rule !== undefined);
  // Many files share folders: each folder's verdict is computed once.
  const folderVerdicts = new Map<string, boolean>();
  const folderIgnored = (folder: string): boolean => {
    const known = folderVerdicts.get(folder);
    if (known !== undefined) return known;
    const slash = folder.lastIndexOf('/');
    // gitignore(5): a file cannot be re-included when a parent folder is excluded, so a parent's verdict wins.
    const verdict = (slash > 0 && folderIgnored(folder.slice(0, slash))) || lastVerdict(rules, folder, true);
    folderVerdicts.set(folder, verdict);
    return verdict;
  };
  return {
    ignores(path: string): boolean {
      if (rules.length === 0) return false;
      const slash = path.lastIndexOf('/');
      if (slash > 0 && folderIgnored(path.slice(0, slash))) return true;
      return lastVerdict(rules, path, false);
    },
  };
}

/** The last rule that matches decides (gitignore(5)); no match means not ignored. */
function lastVerdict(rules: readonly GitignoreRule[], path: string, isFolder: boolean): boolean {
  for (let index = rules.length - 1; index >= 0; index -= 1) {
    const rule = rules[index];
    if (rule === undefined || (rule.folderOnly && !isFolder)) continue;
    if (rule.pattern.test(path)) return !rule.negated;
  }
  return false;
}

function compileLine(raw: string): GitignoreRule | undefined {
  // Trailing spaces are ignored unless escaped with a backslash.
  let line = raw.replace(/(?<!\\)\s+$/u, '');
  if (line === '' || line.startsWith('#')) return undefined;
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\#') || line.startsWith('\\!')) {
    line = line.slice(1);
  }
  let folderOnly = false;
  if (line.endsWith('/')) {
    folderOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's folder; otherwise any depth.
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const body = translate(line);
  if (body === undefined) return undefined;
  try {
    return { pattern: new RegExp(`^${anchored ? '' : '(?:.*/)?'}${body}$`, 'u'), negated, folderOnly };
  } catch {
    // A class such as '[z-a]' is not a valid range; git would match nothing with it, and so do we.
    return undefined;
  }
}

/** Translates a glob into a regular expression body, or undefined for an unclosed `[`. */
function translate(glob: string): string | undefined {
  let out = '';
  let index = 0;
  while (index < glob.length) {
    const char = glob[index] ?? '';
    if (char === '*' && glob[index + 1] === '*') {
      const atStart = index === 0 || glob[index - 1] === '/';
      const next = glob[index + 2];
      if (atStart && next === '/') {
        // '**/': zero or more folders.
        out += '(?:.*/)?';
        index += 3;
        continue;
      }
      if (atStart && next === undefined) {
        // A trailing '/**' matches everything inside (the '/' before it is already in `out`).
        out += '.*';
        index += 2;
        continue;
      }
      // Other consecutive asterisks are regular asterisks (gitignore(5)).
      out += '[^/]*';
      while (glob[index] === '*') index += 1;
      continue;
    }
    if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) return undefined;
      let set = glob.slice(index + 1, close);
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      out += `(?!/)[${set.replace(/[\\\]]/g, '\\$&')}]`;
      index = close + 1;
      continue;
    } else if (char === '\\' && index + 1 < glob.length) {
      out += escapeRegExp(glob[index + 1] ?? '');
      index += 2;
      continue;
    } else {
      out += escapeRegExp(char);
    }
    index += 1;
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
