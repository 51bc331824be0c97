// What a front end that makes its own providers gets here (the command line's --model, a queue worker's specs):
// choosing the model spec, creating its provider, and the error naming a bad one. Import it lazily: it reaches
// the resolver of every provider.
export { chooseModelSpec, createProvider, ModelConfigError } from '../orchestrator/models/resolve.js';
