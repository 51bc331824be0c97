// What a front end that makes its own providers gets here (the command line's --model, a queue worker's specs):
// choosing and parsing the model spec (the scheduler checks a task's), creating its provider, and the error naming a
// bad one. Import it lazily where start-up time counts: it reaches the resolver of every provider.
export { chooseModelSpec, createProvider, ModelConfigError, parseModelSpec } from '../orchestrator/models/resolve.js';
