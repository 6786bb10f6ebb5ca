export { startScimSandbox } from './start-scim-sandbox.js';
export { BUILT_IN_APP_PREFIX, BUILT_IN_APP_QUIRKS } from './built-in-app.js';
export type {
  RecordedRequest,
  ScimQuirks,
  ScimSandbox,
  ScimSandboxAuth,
  ScimSandboxOptions,
  ScimStoreSnapshot,
} from './types.js';
export type { SandboxFaultKind, SandboxFaultPlan } from '../faults/sandbox-fault-plan.js';
export type { TruthChange, TruthEvent } from '../truth/truth-event.js';
