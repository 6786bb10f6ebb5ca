export { createGraphConnector, GraphConnector, GRAPH_CAPABILITIES } from './graph-connector';
export type { GraphConnectorDeps } from './graph-connector';
export type { StatusOptions } from './graph-status';
export type {
  GroupStructure,
  InheritedMembershipsResult,
  NestedReadStats,
} from './nested-group-reads';
export { GRAPH_PERMISSIONS, assessClaim, type GraphTask } from './graph-permissions';
export { buildAuthorityMetadata } from './authority-metadata';
