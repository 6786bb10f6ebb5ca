export { startGraphSandbox } from './start-graph-sandbox.js';
export {
  DEFAULT_SANDBOX_CLIENT,
  DEFAULT_SANDBOX_TENANT_ID,
  DEFAULT_VERIFIED_DOMAINS,
} from './sandbox-defaults.js';
export type {
  DirectorySnapshot,
  GraphSandbox,
  GraphSandboxClient,
  GraphSandboxOptions,
  GraphSandboxRequestRecord,
  NewObjectWriteLag,
  ReplicationDelay,
  SandboxGroupSeed,
  SandboxSignInActivity,
  SandboxUserSeed,
  ThrottleSettings,
} from './graph-sandbox-types.js';
export type { GraphQuotaOptions, GraphQuotaStats } from './entra-quota.js';
export type { SandboxFaultKind, SandboxFaultPlan } from '../faults/sandbox-fault-plan.js';
export type { TruthChange, TruthEvent } from '../truth/truth-event.js';
