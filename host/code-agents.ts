// What the library gets for the agents its host defines in code (defineAgent): the profile such an agent becomes, as
// an agent file's would (codeAgentProfile), from the fields it was given.
export { codeAgentProfile, type CodeAgentFields } from '../roles/code-agents.js';
