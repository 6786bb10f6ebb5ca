import type { InvocationContext } from '@azure/functions';
import { isProvisioningError, type SerializedError } from '../../domain/errors';
import { probeDelayMs, targetFailureMarkOf, type QuarantineState } from '../../domain/quarantine';
import type { LeaseResult } from '../../store/account-state';
import type { ActivityResult } from '../activity-result';
import { failureOf, runActivity } from '../activity-result';
import { ORCHESTRATIONS, probeInstanceId } from '../names';
import type { OrchestrationClient } from '../orchestration-client';
import type { ServicesProvider, WorkflowServices } from '../workflow-services';
import type { CreateAccountAnswer, PasswordKept } from '../../domain/target-answers';
import type { CreateAccountInput, LeaseInput } from './activity-inputs';
import { createUnderLease } from './account-activities';
import { connectorOf } from './connector-of';
import type { UnderLease } from './lease-deadline';
import { lookUpRolesOfSteps, type FoundRoles, type RoleLookUp } from './role-lookup';
import { acquireLease } from './service-activities';

/** A request's question: may it run on its connector now? */
export interface GateInput {
  connector: string;
  requestId: string;
  /** The orchestration's time (ISO): when a quarantine this call starts begins. */
  at: string;
  /** The request's first look: a state this worker read seconds ago may answer. */
  firstLook?: boolean;
  /** The error a step just met: when its mark says so, it quarantines the connector. */
  failure?: SerializedError;
  /** The request is noted as held already. */
  held?: boolean;
  /** The request stops waiting whatever the answer (held too long): note it held no more. */
  leaving?: boolean;
  /**
   * The account's lease to take when the connector is open: a request's first look and its
   * lease in one activity. A closed connector takes no lease (the request waits first).
   */
  lease?: LeaseInput;
  /**
   * With `lease`: the groups each membership step names, looked up in the role catalogue in
   * the same activity when the lease is taken, so that the steps need no lookup of their own.
   */
  lookUps?: RoleLookUp[];
  /**
   * With `lease` (revision 5): the request's first action, a create, sent once the lease is
   * taken (and the groups looked up), as the createAccount activity sends it, with the record
   * the lease read as `stored`: a request that starts with a create needs no activity for it.
   */
  create?: CreateAccountInput & UnderLease;
}

export type GateAnswer =
  /**
   * `lease`: the lease the input asked for, as taken (or found taken). `roles`: the steps'
   * groups the input asked for, when the lease was taken and the catalogue could be read.
   * `created`: the answer to the input's create, when the lease was taken (it was sent then);
   * a failure the createAccount activity would have thrown for a retry comes back as data,
   * so that the lease taken is not lost with it: the request sends the create again.
   */
  | {
      open: true;
      state?: QuarantineState;
      lease?: LeaseResult;
      roles?: FoundRoles[];
      created?: ActivityResult<CreateAccountAnswer & PasswordKept>;
    }
  | { open: false; quarantine: QuarantineState; maxHoldHours: number };

/** The probe's question: is the target back? */
export interface ProbeInput {
  connector: string;
  epoch: number;
  /** The orchestration's time (ISO). */
  at: string;
}

export type ProbeAnswer = { done: true; released: boolean } | { done: false; nextProbeAt: string };

/** How long a request's first look may take the state this worker read before. */
const FIRST_LOOK_MAX_AGE_MS = 5_000;

/**
 * The activities of quarantines (issue 14): a request asks whether it may run (and, with the
 * failure that tipped the count, quarantines the connector); the connector's probe checks
 * the target and releases it. Starting the probe needs an orchestration client.
 */
export function quarantineActivities(
  services: ServicesProvider,
  orchestrations?: (context: InvocationContext) => OrchestrationClient,
) {
  const probesStarted = new Set<string>();
  return {
    async connectorGate(
      input: GateInput,
      context?: InvocationContext,
    ): Promise<ActivityResult<GateAnswer>> {
      return runActivity('connectorGate', services, async (s) => {
        const settings = s.registry.settings(input.connector)?.quarantine;
        const current =
          settings?.enabled === true
            ? await s.quarantine.get(
                input.connector,
                input.firstLook === true ? { maxAgeMs: FIRST_LOOK_MAX_AGE_MS } : {},
              )
            : undefined;
        let state = current;
        if (settings !== undefined && state?.quarantined !== true) {
          const failure = input.failure;
          if (failure !== undefined && targetFailureMarkOf(failure)?.quarantines === true) {
            state = await s.quarantine.enter(input.connector, {
              at: input.at,
              reason: { code: failure.code, message: failure.message },
              nextProbeAt: new Date(Date.parse(input.at) + probeDelayMs(0, settings)).toISOString(),
            });
            // enter() leaves a quarantine another worker began as it was: count only a new one.
            if (state.since === input.at && state.epoch !== current?.epoch) {
              s.metrics.quarantineEntered(input.connector, failure.code);
            }
            s.logger.warn(`connector ${input.connector} quarantined: ${failure.code}`, {
              connector: input.connector,
              requestId: input.requestId,
            });
          }
        }
        if (settings === undefined || state?.quarantined !== true || input.leaving === true) {
          if (input.held === true) await s.quarantine.unhold(input.connector, input.requestId);
          const lease = input.lease === undefined ? undefined : await acquireLease(s, input.lease);
          // Looked up only with the lease taken (a request that waits for it looks its groups
          // up when its steps run); never fails the activity, which would strand the lease.
          const found =
            lease?.acquired === true && input.lookUps !== undefined
              ? await lookUpRolesOfSteps(s, input.connector, input.lookUps)
              : undefined;
          // Sent under the lease only (DESIGN invariant 7): a request that waits for it, or
          // for the quarantine, sends its create in an activity of its own.
          const created =
            lease?.acquired === true && input.create !== undefined
              ? await createAnswered(s, { ...input.create, stored: lease.record ?? null })
              : undefined;
          return {
            open: true,
            ...(state === undefined ? {} : { state }),
            ...(lease === undefined ? {} : { lease }),
            ...(found === undefined ? {} : { roles: found }),
            ...(created === undefined ? {} : { created }),
          };
        }
        if (orchestrations !== undefined && context !== undefined) {
          await ensureProbe(orchestrations(context), state, probesStarted);
        }
        if (input.held !== true) {
          await s.quarantine.hold(input.connector, { requestId: input.requestId, since: input.at });
        }
        return { open: false, quarantine: state, maxHoldHours: settings.maxHoldHours };
      });
    },

    /**
     * One probe of a quarantined connector, once it is due: the connector's health probe. Only
     * the target's own healthy answer releases the connector; anything else (no answer, a 429,
     * a 403, a gateway's page) is kept as the state's last error, and sets the next probe, each
     * twice as far off as the one before, up to the most.
     */
    async probeConnector(input: ProbeInput): Promise<ActivityResult<ProbeAnswer>> {
      return runActivity('probeConnector', services, async (s) => {
        const state = await s.quarantine.get(input.connector);
        const settings = s.registry.settings(input.connector)?.quarantine;
        if (state?.quarantined !== true || state.epoch !== input.epoch || settings === undefined) {
          return { done: true, released: false };
        }
        if (Date.parse(input.at) < Date.parse(state.nextProbeAt)) {
          return { done: false, nextProbeAt: state.nextProbeAt };
        }
        const failure = await probeFailure(s, input.connector);
        if (failure !== undefined) {
          const nextProbeAt = new Date(
            Date.parse(input.at) + probeDelayMs(state.probes + 1, settings),
          ).toISOString();
          const after = await s.quarantine.probeFailed(input.connector, input.epoch, {
            at: input.at,
            error: failure,
            nextProbeAt,
          });
          return after === undefined
            ? { done: true, released: false }
            : { done: false, nextProbeAt };
        }
        const { released } = await s.quarantine.release(
          input.connector,
          'probe',
          input.at,
          input.epoch,
        );
        if (released) s.logger.info(`connector ${input.connector} released: the probe succeeded`);
        return { done: true, released };
      });
    },
  };
}

/**
 * The create's answer as the createAccount activity gives it, its every failure as data: one
 * thrown would fail the whole activity, and with it the lease it took, for a retry that
 * takes the lease and sends the create again. A retryable one (`retryable`), which Durable
 * would have retried, the request sends again in the create's own activity: its claimed
 * intent tells that run an earlier attempt may have made the account.
 */
async function createAnswered(
  s: WorkflowServices,
  input: CreateAccountInput & UnderLease,
): Promise<ActivityResult<CreateAccountAnswer & PasswordKept>> {
  try {
    return { ok: true, value: await createUnderLease(s, input) };
  } catch (error) {
    return { ok: false, error: failureOf('connectorGate', error, s.logger) };
  }
}

/**
 * Why the probe keeps the quarantine; undefined only when the target gave its own healthy
 * answer (DESIGN invariant 11): a 429, a 403 or a gateway's page keeps it, and says so.
 */
async function probeFailure(
  services: WorkflowServices,
  connector: string,
): Promise<{ code: SerializedError['code']; message: string } | undefined> {
  try {
    const probe = await connectorOf(services, connector).probeHealth();
    return probe.healthy
      ? undefined
      : { code: probe.code, message: `connector "${connector}" probe: ${probe.seen}` };
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

/** Starts the quarantine's probe unless it runs already (one per quarantine, whichever worker asks). */
async function ensureProbe(
  client: OrchestrationClient,
  state: QuarantineState,
  started: Set<string>,
): Promise<void> {
  const instanceId = probeInstanceId(state.connector, state.epoch);
  if (started.has(instanceId)) return;
  await client.startNew(ORCHESTRATIONS.connectorProbe, instanceId, {
    connector: state.connector,
    epoch: state.epoch,
  });
  started.add(instanceId);
}
