import type { ImportLease } from '../store/role-catalogue';
import { IMPORT_LEASE_MS } from '../workflows/activities/import-lease-keeper';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import { ENDED_STATUSES, type OrchestrationClient } from '../workflows/orchestration-client';
import type { JobInput } from '../workflows/orchestrators/job-orchestrators';
import type { WorkflowServices } from '../workflows/workflow-services';

/**
 * How long a lease whose job Durable does not know yet is believed: the caller that took it
 * starts the job right after.
 */
const START_GRACE_MS = 60_000;

/** A catalogue import started, or the job of the connector that is running already. */
export type ImportStart = { started: true } | { started: false; running: ImportLease };

/**
 * Starts a catalogue import job unless one of the connector runs (one import per connector
 * at a time: a double click, or the schedule's import while an operator's runs). The job's
 * lease is taken before it starts; the lease of a job Durable reports ended (or never
 * started) is taken over at once rather than waited out.
 */
export async function startCatalogueImport(
  services: WorkflowServices,
  orchestrations: OrchestrationClient,
  input: JobInput,
): Promise<ImportStart> {
  const nowMs = services.now?.() ?? Date.now();
  const claim = { jobId: input.jobId, nowMs, ttlMs: IMPORT_LEASE_MS };
  let answer = await services.catalogue.claimImport(input.connector, claim);
  if (!answer.held && (await hasEnded(orchestrations, answer.holder, nowMs))) {
    answer = await services.catalogue.claimImport(input.connector, {
      ...claim,
      replacing: answer.holder.jobId,
    });
  }
  if (!answer.held) return { started: false, running: answer.holder };
  await orchestrations.startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(input.jobId), input);
  return { started: true };
}

async function hasEnded(
  orchestrations: OrchestrationClient,
  holder: ImportLease,
  nowMs: number,
): Promise<boolean> {
  const state = await orchestrations.getStatus(jobInstanceId(holder.jobId));
  if (state === undefined) return nowMs - Date.parse(holder.since) > START_GRACE_MS;
  return ENDED_STATUSES.has(state.runtimeStatus);
}
