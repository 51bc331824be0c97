// The logger both SDK clients get: nothing of theirs reaches the application's console (what they would say is in the
// ModelError murmur returns). It keeps the one thing the error lacks: the data of an event the SDK could not parse
// (the SDK logs it, then throws a bare SyntaxError).
const quiet = () => undefined;

export class SdkLog {
  private unparsed: string | undefined;

  /** For the client's `logger` option, with `logLevel: 'error'` (lower levels are never built). */
  readonly logger = {
    error: (message: unknown, ...args: unknown[]) => {
      if (typeof message === 'string' && /could not parse/i.test(message) && typeof args[0] === 'string')
        this.unparsed = args[0];
    },
    warn: quiet,
    info: quiet,
    debug: quiet,
  };

  /**
   * The data of the last event that was not JSON, once. Per client, not per request: two streams of one provider
   * breaking in the same instant may swap excerpts, both from the same server.
   */
  takeUnparsed(): string | undefined {
    const data = this.unparsed;
    this.unparsed = undefined;
    return data;
  }
}
