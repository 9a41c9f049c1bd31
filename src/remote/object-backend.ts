/**
 * Where a remote keeps contents, by the hex of their sha256: an S3-compatible bucket or a table of the catalog.
 * Raw bytes in and out; verifying them against their name is the object store's business ({@link remoteObjects}).
 */
export interface ObjectBackend {
  /** What messages name: `s3://bucket/prefix` or `the catalog`. */
  readonly location: string;
  /** The bytes stored under `hex`, or undefined when none are. */
  get(hex: string): Promise<Uint8Array | undefined>;
  /** The size of what is stored under `hex`, or undefined when nothing is. */
  size(hex: string): Promise<number | undefined>;
  /** Stores `bytes` under `hex` in place of what was there, whole (a reader never sees part of them). */
  put(hex: string, bytes: Uint8Array): Promise<void>;
  /**
   * Stores `bytes` under `hex` only when nothing is stored there, in one request where the store can say so
   * itself (S3's conditional write, `ON CONFLICT DO NOTHING`); false when something was there already (the object
   * store then compares it and heals it). A store that ignores the condition overwrites, and says true.
   */
  putNew(hex: string, bytes: Uint8Array): Promise<boolean>;
  /** Reaches the store as a read does (an S3 listing of the prefix); throws {@link RemoteError} when it cannot. */
  probe(): Promise<void>;
  /** Removes what is stored under `hex`; false when nothing was. */
  remove(hex: string): Promise<boolean>;
  /**
   * The names directly below a folder of the layout `sha256/<2 hex>/<62 hex>`: `[]` names the folders of
   * `sha256/` (`ab`), `['ab']` the files of `sha256/ab/` (`<62 hex>`), sorted.
   */
  list(below: readonly string[]): Promise<string[]>;
  /** Whether anything is stored at all (so `.agent/objects` lists as a folder). */
  isEmpty(): Promise<boolean>;
  /** Releases what the backend holds open. */
  close(): Promise<void>;
}
