import { expect } from 'vitest';
import { StoreError } from '../../src/store/store-error.js';

/** The {@link StoreError} a store call rejected with; fails the test when it resolved or threw anything else. */
export async function storeErrorOf(call: Promise<unknown>): Promise<StoreError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}
