/**
 * How many bytes a `StoredFileReader.read` of `length` at `position` returns from a file of `size` bytes:
 * none at or past the end; a position or length that is not a whole number of bytes is misuse.
 */
export function bytesToRead(size: number, position: number, length: number): number {
  if (!Number.isSafeInteger(position) || position < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(
      `read(${String(position)}, ${String(length)}): position and length must be whole numbers of bytes, 0 or more`,
    );
  }
  return Math.max(0, Math.min(length, size - position));
}
