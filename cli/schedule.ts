// Placeholder: replaced by the `murmur schedule` command.
import { UsageError } from './args.js';

export async function scheduleCommand(_argv: readonly string[]): Promise<number> {
  throw new UsageError('murmur schedule: not built yet.');
}
