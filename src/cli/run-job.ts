import { randomUUID } from 'node:crypto';
import { ProvisioningError } from '../domain/errors';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobReport } from '../workflows/orchestrators/job-orchestrators';
import type { CliContext } from './cli-context';

/**
 * Runs a job (import, compatibility run, reconciliation) through the service as the API
 * starts it, waits for its end and answers its result; a job that did not succeed throws its
 * error, naming the connector.
 *
 * @example
 * const summary = await runJob(ctx, 'catalogueImport', { type, connector }, 'import', 30 * 60_000);
 */
export async function runJob<T>(
  ctx: CliContext,
  orchestration: keyof typeof ORCHESTRATIONS,
  input: { type: string; connector: string } & Record<string, unknown>,
  label: string,
  waitMs: number,
): Promise<T> {
  const service = await ctx.service();
  const jobId = randomUUID();
  const instanceId = jobInstanceId(jobId);
  await service.driver.startNew(ORCHESTRATIONS[orchestration], instanceId, {
    ...input,
    jobId,
    trigger: 'cli',
  });
  const job = (await service.driver.waitFor(instanceId, waitMs)).output as JobReport | undefined;
  if (job?.status !== 'succeeded' || job.result === undefined) {
    throw new ProvisioningError(
      job?.error?.code ?? 'INTERNAL_ERROR',
      job?.error?.message ?? `the ${label} job ${jobId} did not finish`,
      { object: input.connector },
    );
  }
  return job.result as T;
}
