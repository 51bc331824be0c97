// Runs once before the suites: the end-to-end tests spawn package.json's bin, so a missing or stale bundle would
// test yesterday's program. `npm test` builds first; a bare `npx vitest` on stale sources stops here with what to do.
import { staleBinReason } from './murmur-bin.js';

export default function setup(): void {
  const reason = staleBinReason();
  if (reason) throw new Error(reason);
}
