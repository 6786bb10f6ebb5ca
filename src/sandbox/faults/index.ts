export { FaultDecider } from './fault-decider.js';
export type { CallFault, CallScope, LostAnswer } from './fault-decider.js';
export { SANDBOX_FAULT_KINDS, checkFaultPlan } from './sandbox-fault-plan.js';
export type { SandboxFaultKind, SandboxFaultPlan } from './sandbox-fault-plan.js';
export { seededStream } from './seeded-stream.js';
export type { TruthChange, TruthEvent } from '../truth/index.js';
export { PROXY_NOT_FOUND_PAGE, ProxyNotFound } from './proxy-not-found.js';
export type { ProxyNotFoundBody } from './proxy-not-found.js';
