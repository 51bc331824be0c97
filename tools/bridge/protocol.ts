// What the murmur-tools launcher and the host say to each other, and the command's exit codes (contract).

/** Exit codes of murmur-tools (contract). */
export const EXIT = { ok: 0, toolError: 1, usage: 2, refused: 3, noLease: 4 } as const;
export type BridgeExit = (typeof EXIT)[keyof typeof EXIT];

export interface BridgeAnswer {
  exit: BridgeExit;
  stdout?: string;
  stderr?: string;
}

/** Answers one murmur-tools invocation of the lease's agent; the signal aborts when the command goes away. */
export type BridgeHandler = (argv: readonly string[], signal: AbortSignal) => Promise<BridgeAnswer>;
