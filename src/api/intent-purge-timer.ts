import type { InvocationContext } from '@azure/functions';
import { firstKeptDay } from '../domain/write-intent-retention';
import type { ApiDeps } from './api-deps';

/** When the purge of write intents runs: every day at 04:15 UTC (NCRONTAB with seconds). */
export const INTENT_PURGE_SCHEDULE = '0 15 4 * * *';

/**
 * The daily timer that bounds the `WriteIntents` table and the step-commit markers in the
 * journal's: deletes the intents of requests received before the first day kept
 * (`WRITE_INTENT_RETENTION_DAYS`), which no request can run a write again for any more, and
 * the markers of each configured connector's commits stamped before it, which no request can
 * run again either. Off every request's path: a request only claims intents and markers.
 * Answers how many were deleted.
 */
export function intentPurgeTimerHandler(deps: ApiDeps, retentionDays: number) {
  return async (_timer: unknown, context: InvocationContext): Promise<PurgeCounts> => {
    const { intents, journal, registry } = await deps.services();
    const before = firstKeptDay(deps.now().getTime(), retentionDays);
    const deleted = await intents.purge(before);
    context.log(`write intents of requests received before ${before} purged: ${deleted}`);
    let markers = 0;
    for (const connector of registry.names()) {
      markers += await journal.purgeStepMarkers(connector, before);
    }
    context.log(`step-commit markers of commits before ${before} purged: ${markers}`);
    return { intents: deleted, markers };
  };
}

/** What one purge deleted. */
export interface PurgeCounts {
  intents: number;
  markers: number;
}
