// Placeholder: replaced by the `murmur sessions` command.
import { UsageError } from './args.js';

export async function sessionsCommand(_argv: readonly string[]): Promise<number> {
  throw new UsageError('murmur sessions: not built yet.');
}
