export { ScimConnector, toGroupRef } from './scim-connector';
export type { ScimHttpOptions } from './scim-http';
export { runScimCompatibility } from './compatibility-run';
export type { CompatibilityReport, CompatibilityPoint } from './compatibility-report';
export { formatCompatibilityReport } from './compatibility-report';
