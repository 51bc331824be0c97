// Placeholder: replaced by the `murmur worker` command.
import { UsageError } from './args.js';

export async function workerCommand(_argv: readonly string[]): Promise<number> {
  throw new UsageError('murmur worker: not built yet.');
}
