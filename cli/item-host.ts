// A queue worker's item host (host/item-host.ts) on the command line (`murmur worker`): a bad value in its input is
// a usage error there, named as the command line names it.
import { UsageError } from './args.js';
import type { AssemblyInput } from '../host/assemble.js';
import { openItemHost, type ItemHost } from '../host/item-host.js';
import { HostInputError } from '../host/errors.js';
import { commandTracing } from './telemetry.js';

export async function itemHostForCommand(input: AssemblyInput): Promise<ItemHost> {
  try {
    // The command's traces, unless the caller chose (a worker's item joins its coordinator's trace).
    return await openItemHost({ ...commandTracing(), ...input });
  } catch (error) {
    if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}
