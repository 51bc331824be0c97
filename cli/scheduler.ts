// Placeholder: replaced by the `murmur scheduler` command.
import { UsageError } from './args.js';

export async function schedulerCommand(_argv: readonly string[]): Promise<number> {
  throw new UsageError('murmur scheduler: not built yet.');
}
