/**
 * What the object writer thread is asked: store the objects of a batch in the files object store of the project
 * at `projectDir`. The batch's bytes come as one buffer, moved to the thread (not copied), the objects one after
 * another in it, `lengths` long.
 */
export interface ObjectWriteRequest {
  readonly id: number;
  readonly projectDir: string;
  readonly durability: 'fsync' | 'none';
  readonly bytes: Uint8Array;
  readonly lengths: readonly number[];
}

/** What the object writer thread answers: that it loaded, or how a request ended (a failure is only said). */
export type ObjectWriteAnswer =
  | { readonly ready: true }
  | { readonly id: number; readonly stored: number }
  | { readonly id: number; readonly error: string };
