/**
 * What the object writer thread is asked: store the objects of a batch in the files object store of the project
 * at `projectDir`. The batch's bytes come as one buffer of its own, the objects one after another in it, `lengths`
 * long (a file's bytes may be a view of a larger buffer, Node's pool, which a message would carry whole).
 */
export interface ObjectWriteRequest {
  readonly projectDir: string;
  readonly durability: 'fsync' | 'none';
  readonly bytes: Uint8Array;
  readonly lengths: readonly number[];
}
