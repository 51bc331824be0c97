// What the front ends get of the model provider contract: ModelProvider with its requests, results and errors, and
// the helpers a provider of one's own answers with (modelError, errorKindForStatus, parseRetryAfter).
export type {
  ModelCapabilities,
  ModelError,
  ModelErrorKind,
  ModelProvider,
  ModelRequest,
  ModelResult,
} from '../orchestrator/models/provider.js';
export { errorKindForStatus, modelError, parseRetryAfter } from '../orchestrator/models/provider.js';
