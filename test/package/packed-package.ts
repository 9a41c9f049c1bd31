import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { x as extract } from 'tar';

const execFileAsync = promisify(execFile);

/** The repository root, whose package.json is packed. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The packed tarball, unpacked as an installed dependency of a throwaway project. */
export interface PackedPackage {
  /** The .tgz that `npm pack` wrote (outside the repository). */
  readonly tarball: string;
  /** Every path inside the tarball, relative to its `package/` folder, sorted. */
  readonly files: readonly string[];
  /** A project folder inside the repository holding `node_modules/artifact-ingest`. */
  readonly project: string;
  /** `<project>/node_modules/artifact-ingest`, the unpacked tarball. */
  readonly packageDir: string;
  /** Removes the project and the tarball. */
  readonly remove: () => Promise<void>;
}

/**
 * Packs the built package (npm test builds first) and unpacks it as `node_modules/artifact-ingest` of a
 * project inside the repository, so its dependencies resolve through the repository's node_modules with
 * no network.
 */
export async function packPackage(): Promise<PackedPackage> {
  const packDir = await mkdtemp(path.join(tmpdir(), 'ai-pack-'));
  // --ignore-scripts: prepack would build again; the tests run against the build npm test just made.
  const { stdout } = await execFileAsync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir],
    { cwd: REPO, env: { ...process.env, npm_config_offline: 'true' }, maxBuffer: 64 * 1024 * 1024 },
  );
  const [report] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  const tarball = path.join(packDir, report.filename);
  const project = path.join(REPO, '.pack-test', path.basename(packDir));
  const packageDir = path.join(project, 'node_modules', 'artifact-ingest');
  await mkdir(packageDir, { recursive: true });
  // A package.json of its own: without it the repository's is the nearest, and Node resolves `artifact-ingest` from
  // a script here to the repository itself (package self-reference), never to the unpacked tarball.
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'packed-package-consumer', private: true }, null, 2)}\n`,
  );
  await extract({ file: tarball, cwd: packageDir, strip: 1 });
  // What npm install does for a bin: make it executable and link it, so `npx artifact-ingest` finds it.
  await chmod(path.join(packageDir, 'dist', 'cli', 'main.js'), 0o755);
  await mkdir(path.join(project, 'node_modules', '.bin'));
  await symlink(
    '../artifact-ingest/dist/cli/main.js',
    path.join(project, 'node_modules', '.bin', 'artifact-ingest'),
  );
  return {
    tarball,
    files: report.files.map((file) => file.path).sort(),
    project,
    packageDir,
    remove: async () => {
      await rm(project, { recursive: true, force: true });
      await rm(packDir, { recursive: true, force: true });
      // Only when empty: another test file may be using its own project in there.
      await rmdir(path.join(REPO, '.pack-test')).catch(() => undefined);
    },
  };
}

export { runProgram } from '../helpers/run-cli.js';
