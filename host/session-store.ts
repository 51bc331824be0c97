// What the front ends get of sessions on disk: where a workspace keeps them (stateHome) and one session's store
// (SessionStore).
export { SessionStore, stateHome } from '../orchestrator/session.js';
