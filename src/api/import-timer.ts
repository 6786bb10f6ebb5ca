import { randomUUID } from 'node:crypto';
import type { InvocationContext } from '@azure/functions';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobInput } from '../workflows/orchestrators/job-orchestrators';
import { connectorKind } from '../connectors/connector-kinds';
import type { ApiDeps } from './api-deps';

/**
 * The timer of a connector's `importSchedule`: starts its catalogue import job with the
 * connector's `importOverwriteExisting` option, incremental (only the changes since the last
 * import; a connector that cannot tell them, or the first import, reads everything).
 */
export function importTimerHandler(deps: ApiDeps, connector: string) {
  return async (_timer: unknown, context: InvocationContext): Promise<string | undefined> => {
    const settings = (await deps.services()).registry.settings(connector);
    if (settings === undefined) return undefined;
    const input: JobInput = {
      jobId: randomUUID(),
      type: connectorKind(settings).catalogueJobType,
      connector,
      overwriteExisting: settings.importOverwriteExisting,
      incremental: true,
      trigger: 'schedule',
    };
    await deps
      .orchestrations(context)
      .startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(input.jobId), input);
    context.log(`scheduled ${input.type} job ${input.jobId} started for connector ${connector}`);
    return input.jobId;
  };
}
