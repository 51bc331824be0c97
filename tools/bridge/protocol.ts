// What the murmur-tools launcher and the host say to each other, and the command's exit codes (contract).
//
// A request is a header line, `{lease, argv, attached?}` as JSON, followed by the bytes of the attached
// arguments: `attached` lists `[index, bytes]` pairs, and argv[index] is replaced by the next `bytes` bytes
// (UTF-8). The launcher attaches what it read from --args-file and --args -, so big arguments travel raw (never
// escaped into the JSON line, never parsed twice). The answer is one JSON line, `{exit, stdout?, stderr?}`.

/** Exit codes of murmur-tools (contract). */
export const EXIT = { ok: 0, toolError: 1, usage: 2, refused: 3, noLease: 4 } as const;
export type BridgeExit = (typeof EXIT)[keyof typeof EXIT];

/**
 * The largest request (header and attached arguments) one call may send. The host parses and checks a call's
 * arguments on its event loop; measured on a 2-core machine, JSON of many small objects parses at ~60 MiB/s
 * (text in strings at 250-1000 MiB/s), so 2 MiB keeps the worst case near 50 ms. The launcher refuses a bigger
 * call before sending anything; the host refuses one as soon as its bytes pass the limit.
 */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;

export interface BridgeAnswer {
  exit: BridgeExit;
  stdout?: string;
  stderr?: string;
}

/** The header line of a request, as the launcher sends it. */
export interface BridgeRequestHeader {
  lease: string;
  argv: string[];
  attached?: Array<[index: number, bytes: number]>;
}

/** Answers one murmur-tools invocation of the lease's agent; the signal aborts when the command goes away. */
export type BridgeHandler = (argv: readonly string[], signal: AbortSignal) => Promise<BridgeAnswer>;

/** "2 MiB", "1.5 MiB", "900 KiB": a byte count as people read it. */
export function readableBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/** Why a request is refused for its size: the size, the limit, and what to do instead (exit 2). */
export function tooLargeMessage(bytes: number, atLeast = false): string {
  const size = `${atLeast ? 'at least ' : ''}${bytes} bytes (${readableBytes(bytes)})`;
  return (
    `murmur-tools: the arguments are too large: a call takes at most ${MAX_REQUEST_BYTES} bytes ` +
    `(${readableBytes(MAX_REQUEST_BYTES)}), and this one is ${size}. Pass less per call, or give the tool a path or URL ` +
    'to read instead.\n'
  );
}
