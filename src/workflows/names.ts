import { STEP_OPS } from '../domain/step-ops';

/** Orchestrator names: registered in functions/ and started by the API, never as literals elsewhere. */
export const ORCHESTRATIONS = {
  provisioningRequest: 'provisioningRequest',
  catalogueImport: 'catalogueImport',
  compatibilityRun: 'compatibilityRun',
  requestPreview: 'requestPreview',
  connectorProbe: 'connectorProbe',
  reconciliation: 'reconciliation',
} as const;

/**
 * Activity names (STYLE: one module, never string literals scattered around): the step
 * machines' operations (src/domain/step-ops.ts), each an activity of the same name, and the
 * activities on the service's own state.
 */
export const ACTIVITIES = {
  ...STEP_OPS,
  acquireAccountLease: 'acquireAccountLease',
  releaseAccountLease: 'releaseAccountLease',
  discardSecret: 'discardSecret',
  recordStep: 'recordStep',
  indexRequestEnd: 'indexRequestEnd',
  countRequestEnd: 'countRequestEnd',
  importCatalogue: 'importCatalogue',
  runCompatibility: 'runCompatibility',
  previewRequest: 'previewRequest',
  connectorGate: 'connectorGate',
  probeConnector: 'probeConnector',
  throttleHold: 'throttleHold',
  reconcileTarget: 'reconcileTarget',
  recheckDrift: 'recheckDrift',
} as const;

export type ActivityName = (typeof ACTIVITIES)[keyof typeof ACTIVITIES];

/** Instance ids: a request's id is derived from its requestId, so the same id never runs twice. */
export function requestInstanceId(requestId: string): string {
  return `request-${requestId}`;
}

export function jobInstanceId(jobId: string): string {
  return `job-${jobId}`;
}

/** The probe of a connector's quarantine number `epoch`: one per quarantine, whoever starts it. */
export function probeInstanceId(connector: string, epoch: number): string {
  return `quarantine-probe-${connector}-${epoch}`;
}
