// The one error the library throws for bad options. Runtime failures are never thrown: they are the report's
// `status` and `reason`, as on the command line.
/** The one error the library throws: an option at fault (`option`), with what is accepted in its message. */
export class MurmurOptionsError extends Error {
  override name = 'MurmurOptionsError';
  constructor(
    /** The option at fault, as a path (`model`, `limits.maxAgents`, `swarm.items`…). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}
