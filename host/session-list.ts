// What the front ends get to list a workspace's sessions, newest first (`murmur sessions`, the library's
// listSessions()).
export { listSessionSummaries, type SessionSummary } from '../orchestrator/session-list.js';
