// What the front ends and the scheduler get of sessions on disk: where a workspace keeps them (stateHome), a new
// session's id, one session's store (SessionStore), and its saved state read back (readSavedState).
export { newSessionId, SessionStore, stateHome } from '../orchestrator/session.js';
export { readSavedState, readSavedStateHead, SAVED_STATE_VERSION } from '../orchestrator/saved-state.js';
