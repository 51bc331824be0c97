// What only the command line gets here: the `--events` log writer, the clock its scheduler service runs on (shifted
// by an environment variable in tests), and the type of the model gate its MCP server shares between requests.
export { writeEventLog, type EventLog } from '../orchestrator/events-log.js';
export { systemClock, type Clock } from '../orchestrator/clock.js';
export type { Semaphore } from '../orchestrator/model-gate.js';
