import type { FilesystemRefusalCode, WriteRefusal } from './write-outcome.js';

/** A `refused` outcome for something found on disk at `relativePath`, with a message that says what to fix. */
export function filesystemRefusal(code: FilesystemRefusalCode, relativePath: string): WriteRefusal {
  return {
    status: 'refused',
    code,
    message: refusalMessage(code, JSON.stringify(relativePath)),
    at: relativePath,
  };
}

/** A `refused` outcome for a directory that was moved or replaced between the walk and the rename. */
export function concurrentSwapRefusal(relativeDirectory: string, written: boolean): WriteRefusal {
  const where = JSON.stringify(relativeDirectory === '' ? '.' : relativeDirectory);
  const aftermath = written ? 'the file written there was removed' : 'nothing was written';
  return {
    status: 'refused',
    code: 'symlink',
    message: `workspace directory ${where} was moved or replaced by a symlink while writing (a concurrent swap); ${aftermath}`,
  };
}

function refusalMessage(code: FilesystemRefusalCode, where: string): string {
  switch (code) {
    case 'symlink':
      return `${where} in the workspace is a symlink; symlinks are never followed, even inside: replace it with a real directory or file`;
    case 'not_a_directory':
      return `${where} in the workspace is a file, not a directory; rename it or choose another path`;
    case 'is_a_directory':
      return `${where} in the workspace is a directory; name a file inside it instead`;
    case 'not_a_regular_file':
      return `${where} in the workspace is a FIFO, socket or device; remove it or choose another path`;
  }
}
