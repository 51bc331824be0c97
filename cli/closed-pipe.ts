// `murmur … | head`: when the reader closes stdout early, the rest of the output has nowhere to go. That is the
// reader's choice, not a failure, so the command stops quietly with status 0 instead of an unhandled EPIPE trace.
// A command that listens for stdout's errors itself takes charge of them: `mcp serve` shuts down cleanly, and a
// scheduled run keeps going to save its session when its scheduler (the reader) was killed.
export function exitQuietlyOnClosedStdout(
  stream: NodeJS.WriteStream = process.stdout,
  exit: (code: number) => void = process.exit,
): void {
  const onError = (error: NodeJS.ErrnoException) => {
    if (stream.listeners('error').some((listener) => listener !== onError)) return;
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') exit(0);
    else throw error;
  };
  stream.on('error', onError);
}
