// How much the console reads of a request body: the server refuses more with 413, and the New run / New swarm
// forms say "too large" before sending more.

/** The largest request body the console reads. Its JSON bodies (a scheduled task, a run) are a few KB. */
export const MAX_BODY_BYTES = 1 << 20;
/** …except a new swarm's, whose items as a list may be large. */
export const MAX_SWARM_BODY_BYTES = 32 << 20;
