// What the front ends get to answer a person's part of a run: the asker they implement for approvals, questions and
// plans (Asker and its requests), and who asks (Requester, AgentLabel, describeRequester).
export {
  describeRequester,
  type AgentLabel,
  type ApprovalRequest,
  type Asker,
  type PlanApprovalRequest,
  type Requester,
} from '../orchestrator/permissions/asker.js';
export type { QuestionRequest } from '../tools/adapters-interaction.js';
