/** Hostile `file=` paths for the stress fuzz: every family the path rules and the writer must refuse or confine. */

/** Families of hostile paths, each a function of a counter that keeps paths distinct. */
const FAMILIES: readonly ((n: string) => string)[] = [
  (n) => `../escape-${n}.txt`,
  (n) => `a/../../escape-${n}.txt`,
  (n) => `a/./b/../../../${n}.txt`,
  (n) => `/tmp/escape-${n}.txt`,
  (n) => `//server/share/${n}.txt`,
  (n) => `\\\\server\\share\\${n}.txt`,
  (n) => `..\\..\\escape-${n}.txt`,
  (n) => `a\\b\\${n}.txt`,
  (n) => `C:/escape-${n}.txt`,
  (n) => `c:escape-${n}.txt`,
  (n) => `C:\\Windows\\${n}.txt`,
  // Unicode look-alikes of '/' and '.': fullwidth solidus, division slash, one-dot leader, fullwidth full stop.
  (n) => `\uff0e\uff0e\uff0fescape-${n}.txt`,
  (n) => `..\u2215escape-${n}.txt`,
  (n) => `\u2024\u2024/escape-${n}.txt`,
  (n) => `a/\u2025/${n}.txt`,
  (n) => `e\u0301/${n}.txt`,
  (n) => `\u202e${n}txt.exe`,
  (n) => `ctl\u0001/${n}.txt`,
  (n) => `ctl\u007f${n}.txt`,
  (n) => `tab\t${n}.txt`,
  (n) => `${'x'.repeat(300)}/${n}.txt`,
  (n) => `${'d/'.repeat(400)}${n}.txt`,
  (n) => `.git/hooks/${n}`,
  (n) => `a/.GIT/${n}`,
  () => `.git`,
  (n) => `CON/${n}.txt`,
  (n) => `nul.${n}.txt`,
  (n) => `a/aux/${n}`,
  (n) => `com1.${n}`,
  // Symlinked components planted in workspace/ (see plantSymlinks): each leads outside the project.
  (n) => `link/${n}.txt`,
  (n) => `link/deeper/${n}.txt`,
  (n) => `real/inner/${n}.txt`,
  () => `file-link.txt`,
  (n) => `relative/${n}.txt`,
  (n) => `real/../link/${n}.txt`,
  (n) => `./link/${n}.txt`,
  (n) => `link/../../${n}.txt`,
  (n) => `real//inner//${n}.txt`,
  (n) => `trailing-dot./${n}.txt`,
  (n) => `space /${n}.txt`,
  (n) => `colon:${n}.txt`,
  (n) => `%2e%2e/${n}.txt`,
  (n) => `..%2f${n}.txt`,
  (n) => `~/${n}.txt`,
  (n) => `$HOME/${n}.txt`,
];

/** `count` hostile paths, cycling through the families with a pseudo-random (seeded) family order. */
export function hostilePaths(count: number, seed = 11): string[] {
  let state = seed;
  const next = (): number => {
    // A linear congruential generator: the same seed gives the same paths on every run.
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
  const paths: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const family = FAMILIES[next() % FAMILIES.length] ?? FAMILIES[0];
    paths.push(family === undefined ? `../${String(index)}` : family(String(index)));
  }
  return paths;
}

/** How many families {@link hostilePaths} draws from. */
export const HOSTILE_PATH_FAMILIES = FAMILIES.length;
