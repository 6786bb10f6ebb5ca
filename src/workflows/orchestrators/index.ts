import type { OrchestrationHandler } from 'durable-functions';
import { ORCHESTRATIONS } from '../names';
import { connectorProbeOrchestrator } from './connector-probe';
import {
  catalogueImportOrchestrator,
  compatibilityRunOrchestrator,
  requestPreviewOrchestrator,
} from './job-orchestrators';
import { provisioningRequestOrchestrator } from './provisioning-request';
import { reconciliationOrchestrator } from './reconciliation-orchestrator';

/** Every orchestrator by name: registered in functions/ and replayed by the local host. */
export const ORCHESTRATORS: Record<string, OrchestrationHandler> = {
  [ORCHESTRATIONS.provisioningRequest]: provisioningRequestOrchestrator,
  [ORCHESTRATIONS.catalogueImport]: catalogueImportOrchestrator,
  [ORCHESTRATIONS.compatibilityRun]: compatibilityRunOrchestrator,
  [ORCHESTRATIONS.requestPreview]: requestPreviewOrchestrator,
  [ORCHESTRATIONS.connectorProbe]: connectorProbeOrchestrator,
  [ORCHESTRATIONS.reconciliation]: reconciliationOrchestrator,
};
