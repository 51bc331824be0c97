// What the front ends get of the event bus: the bus a run's events go through (EventBus) and the run-time list of
// their types (EVENT_TYPES). The events themselves are protocol/events.ts's.
export { EVENT_TYPES, EventBus } from '../orchestrator/events.js';
