import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import {
  describeDuration,
  holdCheckDelayMs,
  quarantineExpired,
  targetFailureMarkOf,
  type QuarantineState,
} from '../../domain/quarantine';
import type { EffectiveChange } from '../../domain/journal-entry';
import type { RequestHold } from '../../domain/request-report';
import type { StepOutcome } from '../../domain/step-outcome';
import { stepThrottling, type ThrottleHolds } from '../../domain/throttle-hold';
import type { CreateAccountAnswer, PasswordKept } from '../../domain/target-answers';
import type { LeaseResult } from '../../store/account-state';
import type { ActivityResult } from '../activity-result';
import type { LeaseInput } from '../activities/activity-inputs';
import type { GateAnswer, GateInput } from '../activities/quarantine-activities';
import type { FoundRoles, RoleLookUp } from '../activities/role-lookup';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import { HELD_LEASE_MS, renewLease } from './held-lease';
import { waitOutThrottling } from './throttle-hold';

/** The request a hold is about. */
export interface HoldSubject {
  connector: string;
  requestId: string;
  /**
   * The account's lease, when the request holds it: renewed while the request waits, so
   * that no other request for the account writes in between (DESIGN invariant 7).
   * `ttlMs`: its usual lifetime; it is renewed before it would end sooner after the next check.
   */
  lease?: { accountId: string; owner: string; ttlMs: number };
  /** How long the request was held so far: its holds add up against the limit. */
  heldMs: number;
  /** What the holds so far tell the operator (how long, why, who released the connector). */
  notices: string[];
  /** The request's throttling holds so far: they add up against the connector's limit. */
  throttled: ThrottleHolds;
  /**
   * Whether throttling holds the request (a request accepted before they existed fails on
   * it, as it did, so that its history replays: `acceptedSince`).
   */
  holdsThrottling: boolean;
  /** Shows the hold in the request's report while it lasts (undefined: it is over). */
  show(hold: RequestHold | undefined): void;
}

export type HoldOutcome =
  /**
   * The connector is not quarantined: the request goes on (or fails as it is). `taken`: the
   * account's lease, when the look asked for it; `roles`: the steps' groups it asked for, as
   * the gate found them with the lease; `created`: the answer to the create it asked for,
   * when the lease was taken (revision 5).
   */
  | {
      held: false;
      taken?: LeaseResult;
      roles?: FoundRoles[];
      created?: ActivityResult<CreateAccountAnswer & PasswordKept>;
    }
  /** The request waited and may go on now; the lease, when it kept one, as last renewed. */
  | { held: true; lease?: { etag?: string; renewedAt: number } }
  /** The request waited too long (CONNECTOR_QUARANTINED), or the wait itself failed. */
  | { error: SerializedError };

/**
 * After a step failed: waits while the connector is quarantined when the failure is one that
 * fails every request (refused credentials, a target down), or for as long as the target
 * asks when it throttled the step; any other failure is the request's own, and it fails as
 * it did. `held: true`: the step runs again from its start.
 */
export function* holdAfterFailure(
  context: OrchestrationContext,
  subject: HoldSubject,
  failure: SerializedError | undefined,
): Step<HoldOutcome> {
  const throttling = stepThrottling(failure);
  if (throttling !== undefined && failure !== undefined && subject.holdsThrottling) {
    return yield* waitOutThrottling(context, subject, failure, throttling);
  }
  if (targetFailureMarkOf(failure) === undefined) return { held: false };
  return yield* waitWhileQuarantined(context, subject, { failure });
}

/**
 * The outcome of a step that ran again after holds: its changes in every run (a change
 * made before the hold stays this request's) and the holds' notices first.
 */
export function withHolds(
  outcome: StepOutcome,
  earlier: readonly EffectiveChange[],
  subject: Pick<HoldSubject, 'notices'>,
): StepOutcome {
  const changes = new Map<string, EffectiveChange>();
  for (const change of [...earlier, ...outcome.changes]) {
    changes.set(`${change.change}\u0000${change.groupId ?? ''}`, change);
  }
  const notices = subject.notices.splice(0);
  return { ...outcome, changes: [...changes.values()], notices: [...notices, ...outcome.notices] };
}

/**
 * Waits while the request's connector is quarantined (issue 14): on durable timers, looking
 * again just after each probe and at most 30 s growing to 10 minutes apart
 * (`holdCheckDelayMs`), until the connector is released or the request has been held
 * `maxHoldHours` in all. `look.failure`: the error a step just met; when it tipped the
 * count, it quarantines the connector first. `look.lease` (a first look): the account's
 * lease, taken in the same activity when the connector is open, and with it the groups of
 * `look.lookUps` and `look.create` sent (revision 5).
 */
export function* waitWhileQuarantined(
  context: OrchestrationContext,
  subject: HoldSubject,
  look: {
    failure?: SerializedError;
    lease?: LeaseInput;
    lookUps?: RoleLookUp[];
    create?: GateInput['create'];
  } = {},
): Step<HoldOutcome> {
  const { failure, lease: wanted, lookUps, create } = look;
  const first = yield* askGate(
    context,
    subject,
    failure !== undefined
      ? { failure }
      : {
          firstLook: true,
          ...(wanted === undefined ? {} : { lease: wanted }),
          ...(wanted === undefined || lookUps === undefined || lookUps.length === 0
            ? {}
            : { lookUps }),
          ...(wanted === undefined || create === undefined ? {} : { create }),
        },
  );
  if ('error' in first) return first;
  if (first.open) {
    return {
      held: false,
      ...(first.lease === undefined ? {} : { taken: first.lease }),
      ...(first.roles === undefined ? {} : { roles: first.roles }),
      ...(first.created === undefined ? {} : { created: first.created }),
    };
  }
  const now = () => context.df.currentUtcDateTime.getTime();
  const started = now();
  const maxMs = first.maxHoldHours * 3_600_000;
  let quarantine: QuarantineState = first.quarantine;
  let lease: { etag?: string; renewedAt: number } | undefined;
  let leaseUntil = 0;
  for (let poll = 0; ; poll++) {
    const at = now();
    const heldMs = subject.heldMs + (at - started);
    if (heldMs >= maxMs) {
      subject.show(undefined);
      yield* askGate(context, subject, { held: true, leaving: true });
      return { error: quarantineExpired(quarantine, heldMs, first.maxHoldHours) };
    }
    const delay = Math.min(
      holdCheckDelayMs(poll, Date.parse(quarantine.nextProbeAt), at),
      maxMs - heldMs,
    );
    // Renewed before it would end within its usual time after the next check: a few times an hour.
    if (subject.lease !== undefined && leaseUntil < at + delay + subject.lease.ttlMs) {
      const ttlMs = delay + HELD_LEASE_MS;
      const renewed = yield* renewLease(context, subject.connector, subject.lease, at, ttlMs);
      if ('error' in renewed) return renewed;
      lease = { ...renewed, renewedAt: at };
      leaseUntil = at + ttlMs;
    }
    subject.show({
      cause: 'quarantine',
      since: new Date(started).toISOString(),
      quarantinedSince: quarantine.since,
      reason: quarantine.reason,
      nextCheckAt: new Date(at + delay).toISOString(),
    });
    yield* waitFor(context, delay);
    const next = yield* askGate(context, subject, { held: true });
    if ('error' in next) return next;
    if (next.open) {
      subject.show(undefined);
      const waited = now() - started;
      subject.heldMs += waited;
      subject.notices.push(heldNotice(quarantine, waited, next.state));
      return { held: true, ...(lease === undefined ? {} : { lease }) };
    }
    quarantine = next.quarantine;
  }
}

function* askGate(
  context: OrchestrationContext,
  subject: HoldSubject,
  extra: Omit<GateInput, 'connector' | 'requestId' | 'at'>,
): Step<GateAnswer | { error: SerializedError }> {
  const input: GateInput = {
    connector: subject.connector,
    requestId: subject.requestId,
    at: context.df.currentUtcDateTime.toISOString(),
    ...extra,
  };
  const answer = yield* callActivity<GateAnswer>(context, ACTIVITIES.connectorGate, input);
  return answer.ok ? answer.value : { error: answer.error };
}

function heldNotice(
  quarantine: QuarantineState,
  waitedMs: number,
  released: QuarantineState | undefined,
): string {
  const by =
    released?.releasedBy === 'operator'
      ? '; an operator released it'
      : released?.releasedBy === 'probe'
        ? '; its probe found the target answering again'
        : '';
  return (
    `held ${describeDuration(waitedMs)} while connector "${quarantine.connector}" was ` +
    `quarantined (${quarantine.reason.code} since ${quarantine.since})${by}`
  );
}
