// The host assembly (host/assemble.ts) for the command line's other hosts (`murmur mcp serve`, `murmur worker`):
// a bad value in the assembly's input is a usage error there, named as the command line names it.
import { UsageError } from './args.js';
import { assembleEngine, type Assembled, type AssemblyInput } from '../host/assemble.js';
import { HostInputError } from '../host/errors.js';
import { commandTracing } from './telemetry.js';

export async function assembleForCommand(input: AssemblyInput): Promise<Assembled> {
  try {
    // The command's traces, unless the caller chose (a worker's item joins its coordinator's trace).
    return await assembleEngine({ ...commandTracing(), ...input });
  } catch (error) {
    if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}
