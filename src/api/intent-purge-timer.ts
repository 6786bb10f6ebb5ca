import type { InvocationContext } from '@azure/functions';
import { firstKeptDay } from '../domain/write-intent-retention';
import type { ApiDeps } from './api-deps';

/** When the purge of write intents runs: every day at 04:15 UTC (NCRONTAB with seconds). */
export const INTENT_PURGE_SCHEDULE = '0 15 4 * * *';

/**
 * The daily timer that bounds the `WriteIntents` table: deletes the intents of requests
 * received before the first day kept (`WRITE_INTENT_RETENTION_DAYS`), which no request can
 * run a write again for any more. Off every request's path: a request only claims intents.
 * Answers how many were deleted.
 */
export function intentPurgeTimerHandler(deps: ApiDeps, retentionDays: number) {
  return async (_timer: unknown, context: InvocationContext): Promise<number> => {
    const { intents } = await deps.services();
    const before = firstKeptDay(deps.now().getTime(), retentionDays);
    const deleted = await intents.purge(before);
    context.log(`write intents of requests received before ${before} purged: ${deleted}`);
    return deleted;
  };
}
