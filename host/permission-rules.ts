// What the front ends get of the permissions they set: the mode (PermissionMode) and the allow, ask and deny rules,
// parsed and their problems described (parseRuleLists, describeRuleProblem).
export type { PermissionMode } from '../orchestrator/permissions/policy.js';
export { describeRuleProblem, parseRuleLists } from '../orchestrator/permissions/rules.js';
