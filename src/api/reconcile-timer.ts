import { randomUUID } from 'node:crypto';
import type { InvocationContext } from '@azure/functions';
import { connectorKind } from '../connectors/connector-kinds';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobInput } from '../workflows/orchestrators/job-orchestrators';
import type { ApiDeps } from './api-deps';

/**
 * The timer of a connector's `reconcileSchedule`: starts its reconciliation job, as
 * `POST /api/connectors/{name}/reconciliations` does.
 */
export function reconcileTimerHandler(deps: ApiDeps, connector: string) {
  return async (_timer: unknown, context: InvocationContext): Promise<string | undefined> => {
    const settings = (await deps.services()).registry.settings(connector);
    const type = settings === undefined ? undefined : connectorKind(settings).reconciliationJobType;
    if (settings === undefined || type === undefined) return undefined;
    const input: JobInput = {
      jobId: randomUUID(),
      type,
      connector,
      settleSeconds: settings.reconcileSettleSeconds,
      trigger: 'schedule',
    };
    await deps
      .orchestrations(context)
      .startNew(ORCHESTRATIONS.reconciliation, jobInstanceId(input.jobId), input);
    context.log(`scheduled ${type} job ${input.jobId} started for connector ${connector}`);
    return input.jobId;
  };
}
