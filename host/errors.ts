// Bad input to the host assembly: which option and what is accepted. Hosts translate it (the command line into
// a usage error naming the flag, the library into MurmurOptionsError).
export class HostInputError extends Error {
  override name = 'HostInputError';
  constructor(
    /** The option at fault (`model`, `permissions`, `cwd`…). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}
