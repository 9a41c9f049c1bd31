import { openProjectStore } from './files-store.js';
import type { ProjectStore } from './project-store.js';

/**
 * A project: the folder that holds `docs/` and `workspace/` (and the config and workflows), and the store that
 * keeps everything else about its runs. Every exported function that takes a `projectDir` takes a `Project`
 * in its place.
 */
export interface Project {
  /** The project folder: documents are read from and files written into it. */
  readonly dir: string;
  /** Where the records, objects, events, manifests, state and indexes of its runs are kept. */
  readonly store: ProjectStore;
}

/** A project folder (its `.agent/` is the store) or a {@link Project}, as every function taking a project accepts. */
export type ProjectRef = string | Project;

/** Options of {@link openProject}. */
export interface OpenProjectOptions {
  /** The store of the project's runs; default: the files store, the folder's `.agent/` ({@link openProjectStore}). */
  readonly store?: ProjectStore;
}

/** The project at `dir`, its runs kept in `options.store` (default: its `.agent/` folder). Nothing is opened yet. */
export function openProject(dir: string, options: OpenProjectOptions = {}): Project {
  return Object.freeze({ dir, store: options.store ?? openProjectStore(dir) });
}

/** Whether `value` is a {@link Project} rather than a folder path. */
export function isProject(value: unknown): value is Project {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { dir?: unknown }).dir === 'string' &&
    typeof (value as { store?: unknown }).store === 'object'
  );
}

/** The {@link Project} a caller named: a folder path opens the folder's files store. */
export function projectOf(project: ProjectRef): Project {
  return typeof project === 'string' ? openProject(project) : project;
}

/** The project folder a caller named, from a path or a {@link Project}. */
export function projectDirOf(project: ProjectRef): string {
  return typeof project === 'string' ? project : project.dir;
}

/**
 * Runs `use` on the project a caller named: a folder path opens its files store for this call alone and closes it
 * after, so the call leaves nothing open; a {@link Project} is used as it is, and its owner closes it.
 */
export async function withProject<T>(project: ProjectRef, use: (project: Project) => Promise<T>): Promise<T> {
  if (typeof project !== 'string') return use(project);
  const opened = openProject(project);
  try {
    return await use(opened);
  } finally {
    await opened.store.close();
  }
}
