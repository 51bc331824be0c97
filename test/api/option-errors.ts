// How the library's tests catch a MurmurOptionsError: from createMurmur's promise, or thrown at a call.
import { expect } from 'vitest';
import { createMurmur, MurmurOptionsError, type MurmurOptions } from '../../api/index.js';

/** The MurmurOptionsError createMurmur rejects with. */
export async function optionError(options: MurmurOptions): Promise<MurmurOptionsError> {
  const error = await createMurmur(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MurmurOptionsError);
  return error as MurmurOptionsError;
}

/** The MurmurOptionsError a call throws synchronously (a refused run never returns a handle). */
export function syncError(call: () => unknown): MurmurOptionsError {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MurmurOptionsError);
  return error as MurmurOptionsError;
}
