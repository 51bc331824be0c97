// One writer at a time per file inside this process: edits and writes to the same file queue up, so the
// stale-read check and the write that follows it cannot interleave with another agent's.
const tails = new Map<string, Promise<void>>();

export async function withFileLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
