// The one vocabulary of how a run stands: how it ended (the reports, run.end, a run's outcome), the subset a swarm
// ends with, and a saved session's status (the same words, plus the two a session has while no run has ended it).

/**
 * How a finished run ended: completed, or why not (`reason` says more); `waiting` when it stopped at calls that need
 * a person (its `interruptions`): a resume given the answers goes on there. An agent's end statuses (EndStatus).
 */
export type RunStatus = 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'waiting';

/** How a swarm ended: completed when every item did, aborted when the run was, waiting when items wait for a person, else failed. */
export type SwarmStatus = Extract<RunStatus, 'completed' | 'failed' | 'aborted' | 'waiting'>;

/**
 * A session's status as saved (`state.json`, `murmur sessions`): `running` while a process runs it, `interrupted`
 * when its process stopped before its run ended, else how its last run ended.
 */
export type SessionStatus = 'running' | 'interrupted' | RunStatus;
