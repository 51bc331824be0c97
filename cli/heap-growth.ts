// The command's V8 heap grows to at most twice what is live. V8 lets a fast allocator's old space grow to about four
// times its live data, so a big swarm's memory followed how fast it worked, not what it held: 100,000 items of a
// zero-latency swarm peaked at 600 MB resident; with this, 394 MB in the same time (npm run bench -- scale). A
// `--heap-growing-percent` given to node itself (`node --heap-growing-percent=0 murmur …`: V8's own) is left as given.
import { setFlagsFromString } from 'node:v8';

const FLAG = /^--heap[-_]growing[-_]percent\b/;

export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => FLAG.test(arg))) return false;
  setFlagsFromString('--heap-growing-percent=100');
  return true;
}
