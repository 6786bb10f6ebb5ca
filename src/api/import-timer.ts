import { randomUUID } from 'node:crypto';
import type { InvocationContext } from '@azure/functions';
import type { JobInput } from '../workflows/orchestrators/job-orchestrators';
import { connectorKind } from '../connectors/connector-kinds';
import type { ApiDeps } from './api-deps';
import { startCatalogueImport } from './catalogue-import-start';

/**
 * The timer of a connector's `importSchedule`: starts its catalogue import job with the
 * connector's `importOverwriteExisting` option, incremental (only the changes since the last
 * import; a connector that cannot tell them, or the first import, reads everything). Skipped,
 * with a log line naming it, while another import of the connector runs.
 */
export function importTimerHandler(deps: ApiDeps, connector: string) {
  return async (_timer: unknown, context: InvocationContext): Promise<string | undefined> => {
    const services = await deps.services();
    const settings = services.registry.settings(connector);
    if (settings === undefined) return undefined;
    const input: JobInput = {
      jobId: randomUUID(),
      type: connectorKind(settings).catalogueJobType,
      connector,
      overwriteExisting: settings.importOverwriteExisting,
      incremental: true,
      trigger: 'schedule',
    };
    const start = await startCatalogueImport(services, deps.orchestrations(context), input);
    if (!start.started) {
      context.log(
        `scheduled ${input.type} of connector ${connector} skipped: job ${start.running.jobId} (since ${start.running.since}) is running`,
      );
      return undefined;
    }
    context.log(`scheduled ${input.type} job ${input.jobId} started for connector ${connector}`);
    return input.jobId;
  };
}
