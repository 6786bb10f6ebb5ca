/** Orchestrator names: registered in functions/ and started by the API, never as literals elsewhere. */
export const ORCHESTRATIONS = {
  provisioningRequest: 'provisioningRequest',
  catalogueImport: 'catalogueImport',
  compatibilityRun: 'compatibilityRun',
} as const;

/** Activity names (STYLE: one module, never string literals scattered around). */
export const ACTIVITIES = {
  acquireAccountLease: 'acquireAccountLease',
  releaseAccountLease: 'releaseAccountLease',
  findAccount: 'findAccount',
  createAccount: 'createAccount',
  updateAccount: 'updateAccount',
  setAccountEnabled: 'setAccountEnabled',
  setPassword: 'setPassword',
  deleteAccount: 'deleteAccount',
  discardSecret: 'discardSecret',
  lookUpRoles: 'lookUpRoles',
  resolveGroup: 'resolveGroup',
  listManagedGroups: 'listManagedGroups',
  readMemberships: 'readMemberships',
  applyMembershipChanges: 'applyMembershipChanges',
  recordJournal: 'recordJournal',
  importCatalogue: 'importCatalogue',
  runCompatibility: 'runCompatibility',
} as const;

export type ActivityName = (typeof ACTIVITIES)[keyof typeof ACTIVITIES];

/** Instance ids: a request's id is derived from its requestId, so the same id never runs twice. */
export function requestInstanceId(requestId: string): string {
  return `request-${requestId}`;
}

export function jobInstanceId(jobId: string): string {
  return `job-${jobId}`;
}
