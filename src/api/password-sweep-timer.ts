import type { InvocationContext } from '@azure/functions';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';
import { requestInstanceId } from '../workflows/names';
import { ENDED_STATUSES, type OrchestrationClient } from '../workflows/orchestration-client';
import type { ApiDeps } from './api-deps';

/** The name every request password is stored under starts so (`transientSecretName`). */
export const REQUEST_PASSWORD_PREFIX = 'request-password-';

/**
 * How long a request password is valid (Key Vault `expiresOn`): shown by the vault, not
 * enforced (an expired secret is still served, and the service reads a running request's
 * password all the same); what the sweep falls back on for a secret it cannot tie to a request.
 */
export const REQUEST_PASSWORD_TTL_MS = 24 * 3600_000;

/** A request password younger than this is never swept (its request may be starting). */
export const PASSWORD_SWEEP_AFTER_MS = 3 * 3600_000;

/** When the sweep runs: every hour at minute 40 (NCRONTAB with seconds, UTC). */
export const PASSWORD_SWEEP_SCHEDULE = '0 40 * * * *';

/** The tag tying a request password to its request (the secret's name is random). */
export const REQUEST_ID_TAG = 'requestId';

/** What a sweep did. */
export interface PasswordSweep {
  deleted: number;
  kept: number;
}

/**
 * The hourly timer that deletes request passwords nothing else will: a crash between storing
 * the password and starting the request, a failed delete after a refused start, a request
 * that ended Failed or Terminated before discarding it. Off every request's path.
 */
export function passwordSweepTimerHandler(deps: ApiDeps) {
  return async (_timer: unknown, context: InvocationContext): Promise<PasswordSweep> => {
    const { secrets, logger } = await deps.services();
    const swept = await sweepRequestPasswords(
      secrets,
      deps.orchestrations(context),
      deps.now().getTime(),
      logger,
    );
    context.log(`request passwords swept: ${swept.deleted} deleted, ${swept.kept} kept`);
    return swept;
  };
}

/**
 * Deletes each `request-password-*` secret older than `PASSWORD_SWEEP_AFTER_MS` whose request
 * never started (no instance), has ended, or is another request's (a start lost to a request
 * with the same id); never one a request that may still read it carries. A secret without
 * its request's tag (written before tags) is deleted only once expired.
 */
export async function sweepRequestPasswords(
  secrets: SecretStore,
  orchestrations: Pick<OrchestrationClient, 'getStatus'>,
  nowMs: number,
  logger: Logger,
): Promise<PasswordSweep> {
  const swept: PasswordSweep = { deleted: 0, kept: 0 };
  if (secrets.list === undefined) return swept;
  for (const secret of await secrets.list(REQUEST_PASSWORD_PREFIX)) {
    const createdMs = secret.createdOn?.getTime();
    const requestId = secret.tags[REQUEST_ID_TAG];
    let stale: boolean;
    if (createdMs === undefined || nowMs - createdMs < PASSWORD_SWEEP_AFTER_MS) stale = false;
    else if (requestId === undefined) {
      stale = secret.expiresOn !== undefined && secret.expiresOn.getTime() <= nowMs;
    } else {
      const state = await orchestrations.getStatus(requestInstanceId(requestId));
      const carried = (state?.input as { passwordSecret?: unknown } | undefined)?.passwordSecret;
      stale = !(
        state !== undefined &&
        !ENDED_STATUSES.has(state.runtimeStatus) &&
        carried === secret.name
      );
    }
    if (!stale) {
      swept.kept++;
      continue;
    }
    await secrets.delete(secret.name);
    swept.deleted++;
    logger.info(`request password ${secret.name} deleted: its request is not running`, {
      ...(requestId === undefined ? {} : { requestId }),
    });
  }
  return swept;
}
