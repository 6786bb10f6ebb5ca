import type { OrchestrationContext } from 'durable-functions';
import type { AccountRecord, AccountRecordUpdate } from '../../domain/account-record';
import type { SerializedError } from '../../domain/errors';
import type { JournalEntry } from '../../domain/journal-entry';
import type { LeaseResult } from '../../store/account-state';
import type { CreateAccountAnswer, PasswordKept } from '../../domain/target-answers';
import type {
  CreateAccountInput,
  LeaseInput,
  RecordedStep,
  RecordStepActivityInput,
  RequestEnd,
} from '../activities/activity-inputs';
import type { FoundRoles, RoleLookUp } from '../activities/role-lookup';
import type { ActivityResult } from '../activity-result';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import { waitWhileQuarantined, type HoldSubject } from './quarantine-hold';

/**
 * A lease outlives any one step (the re-read loop is at most 30 s); it is renewed before a
 * step once half of it has passed. A write is not sent when less is left than one attempt
 * may take (activities/lease-deadline.ts): the lease is renewed then, and the write sent again.
 */
export const LEASE_TTL_MS = 5 * 60_000;
/** How long a request waits for another request on the same account before it fails. */
const LEASE_WAIT_MS = 10 * 60_000;

/**
 * A request's hold on its account (DESIGN invariant 7): the lease, the account's row as the
 * request last wrote it (its version) and the record in it. The request is the row's only
 * writer while it holds the lease, so what it holds is what is stored: no step reads the
 * record again, and each step's journal entries and record go in one write.
 */
export interface AccountHold {
  connector: string;
  accountId: string;
  owner: string;
  /** When the lease was last taken or renewed (orchestration time, ms). */
  takenAt: number;
  etag?: string;
  /** The record as stored (null: none; a deleted account's tombstone included). */
  stored: AccountRecord | null;
  released: boolean;
}

/**
 * The wait before the next poll of a taken lease: every second at first (most requests hold
 * an account for seconds), then longer, up to 15 s: a ten-minute wait stays a short history,
 * which every replay of the orchestration reads again.
 */
export function leasePollDelay(poll: number): number {
  return poll < 10 ? 1_000 : Math.min(15_000, Math.round(1_000 * 1.5 ** (poll - 9)));
}

/**
 * Admits the request and holds its account: waits while the connector is quarantined
 * (issue 14), then for the account's lease (polling on a durable timer), and reads the
 * record with it; an error when it stays taken, unless the connector is quarantined (its
 * holder may be held): then it waits for that too. The first look at the connector takes
 * the lease in the same activity when the connector is open, and looks up the groups of
 * `lookUps` with it: `roles`, each step's answer (none when the lease had to be waited for).
 * `likelyNew`: the request creates the account. `create` (revision 5): the request's first
 * write, sent by the same activity once it took the lease; `created`, its answer (none when
 * the connector was quarantined or the lease had to be waited for: nothing was sent).
 */
export function* holdAccount(
  context: OrchestrationContext,
  account: { connector: string; accountId: string },
  likelyNew: boolean,
  waiting: HoldSubject,
  lookUps: RoleLookUp[] = [],
  create?: CreateAccountInput,
): Step<
  | {
      hold: AccountHold;
      roles: FoundRoles[];
      created?: ActivityResult<CreateAccountAnswer & PasswordKept>;
    }
  | { error: SerializedError }
> {
  const owner = context.df.instanceId;
  const lease = { ...account, owner };
  const wanted = leaseInput(context, lease, likelyNew);
  const admitted = yield* waitWhileQuarantined(context, waiting, {
    lease: wanted,
    lookUps,
    // Under the lease it takes, as the step's writes are (`writeLease`).
    ...(create === undefined
      ? {}
      : { create: { ...create, leaseEndsAtMs: wanted.nowMs + wanted.ttlMs } }),
  });
  if ('error' in admitted) return admitted;
  // A history from before the gate looked roles up has no `roles`: each step looks its own up.
  const roles = ('roles' in admitted ? admitted.roles : undefined) ?? [];
  // A history from before the gate took leases has no `taken`: the lease is asked for alone.
  const first = 'taken' in admitted ? admitted.taken : undefined;
  const created = 'created' in admitted ? admitted.created : undefined;
  const taken = yield* takeLease(context, lease, likelyNew, waiting, first);
  if ('error' in taken) return taken;
  const hold: AccountHold = {
    ...account,
    owner,
    // Taken by a first look that sent the create too (revision 5): when that look took it,
    // not when its answer came, the create's time later.
    takenAt:
      create !== undefined && first?.acquired === true
        ? wanted.nowMs
        : context.df.currentUtcDateTime.getTime(),
    ...(taken.etag === undefined ? {} : { etag: taken.etag }),
    stored: taken.record ?? null,
    released: false,
  };
  return { hold, roles, ...(created === undefined ? {} : { created }) };
}

/**
 * Renews the lease once half of it has passed (a long request), or now with `renew`: an
 * error when it cannot be had again.
 */
export function* keepHold(
  context: OrchestrationContext,
  hold: AccountHold,
  waiting: HoldSubject,
  renew = false,
): Step<{ error: SerializedError } | undefined> {
  if (!renew && !renewalDue(context, hold)) return undefined;
  hold.takenAt = context.df.currentUtcDateTime.getTime();
  const renewed = yield* takeLease(context, hold, false, waiting);
  if ('error' in renewed) return renewed;
  if (renewed.etag === undefined) delete hold.etag;
  else hold.etag = renewed.etag;
  hold.stored = renewed.record ?? null;
  return undefined;
}

/** Whether half of the lease has passed: the next step's start renews it (`keepHold`). */
export function renewalDue(context: OrchestrationContext, hold: AccountHold): boolean {
  return context.df.currentUtcDateTime.getTime() - hold.takenAt > LEASE_TTL_MS / 2;
}

/**
 * The lease as the request's writes need it (`WriteLease`): when it ends, renewed first only
 * with `renew` (a write refused for its lease). A write is never preceded by a renewal of
 * its own otherwise: a request that was running when this version was deployed replays the
 * activities its history holds (the step's start renews as before). `beforeRenewal`: what
 * the request writes before the renewal rewrites the row (a commit it carries).
 */
export function writeLease(
  context: OrchestrationContext,
  hold: AccountHold,
  waiting: HoldSubject,
  beforeRenewal?: () => Step<void>,
): (renew: boolean) => Step<number | { error: SerializedError }> {
  return function* (renew) {
    if (!renew) return hold.takenAt + LEASE_TTL_MS;
    if (beforeRenewal !== undefined) yield* beforeRenewal();
    const lost = yield* keepHold(context, hold, waiting, true);
    return lost ?? hold.takenAt + LEASE_TTL_MS;
  };
}

/** The lease as a quarantine hold last renewed it (the record is as the request left it). */
export function renewedWhileHeld(
  hold: AccountHold,
  lease: { etag?: string; renewedAt: number },
): void {
  hold.takenAt = lease.renewedAt;
  if (lease.etag !== undefined) hold.etag = lease.etag;
}

/**
 * A step's journal entries and record update, written together (DESIGN invariant 1) with
 * the lease released in the same write when nothing of the request follows. `earlier`: the
 * record updates of the steps before it whose commits it carries (their entries are in
 * `entries`). `end`: the request's end, indexed and counted by the same activity once the
 * commit is written (`indexed` in the answer says it was).
 */
export function* commitStep(
  context: OrchestrationContext,
  hold: AccountHold,
  commit: {
    entries: JournalEntry[];
    update?: AccountRecordUpdate;
    earlier?: AccountRecordUpdate[];
    earlierSteps?: number[];
    step?: number;
    release: boolean;
    end?: RequestEnd;
  },
): Step<ActivityResult<RecordedStep>> {
  const result = yield* callActivity<RecordedStep>(context, ACTIVITIES.recordStep, {
    connector: hold.connector,
    accountId: hold.accountId,
    owner: hold.owner,
    leaseExpiresAtMs: hold.takenAt + LEASE_TTL_MS,
    ...(hold.etag === undefined ? {} : { etag: hold.etag }),
    entries: commit.entries,
    ...(commit.update === undefined ? {} : { update: commit.update }),
    ...(commit.earlier === undefined ? {} : { earlier: commit.earlier }),
    ...(commit.earlierSteps === undefined ? {} : { earlierSteps: commit.earlierSteps }),
    ...(commit.step === undefined ? {} : { step: commit.step }),
    stored: hold.stored,
    release: commit.release,
    ...(commit.end === undefined ? {} : { end: commit.end }),
  } satisfies RecordStepActivityInput);
  if (result.ok) {
    hold.stored = result.value.record;
    if (result.value.etag === undefined) delete hold.etag;
    else hold.etag = result.value.etag;
    hold.released ||= commit.release;
  } else {
    // Whatever the row holds now is not known: the next write reads it.
    delete hold.etag;
  }
  return result;
}

/** Releases the lease unless a commit did. */
export function* releaseHold(context: OrchestrationContext, hold: AccountHold): Step<void> {
  if (hold.released) return;
  yield* callActivity<null>(context, ACTIVITIES.releaseAccountLease, {
    connector: hold.connector,
    accountId: hold.accountId,
    owner: hold.owner,
    ...(hold.etag === undefined ? {} : { etag: hold.etag, stored: hold.stored }),
  });
  hold.released = true;
}

/** The lease activity's input: taken now for the usual lifetime. */
function leaseInput(
  context: OrchestrationContext,
  lease: { connector: string; accountId: string; owner: string },
  likelyNew: boolean,
): LeaseInput {
  return {
    connector: lease.connector,
    accountId: lease.accountId,
    owner: lease.owner,
    nowMs: context.df.currentUtcDateTime.getTime(),
    ttlMs: LEASE_TTL_MS,
    ...(likelyNew ? { likelyNew } : {}),
  };
}

/** Polls for the lease; `first`: the answer of a first poll made already (with the gate). */
function* takeLease(
  context: OrchestrationContext,
  lease: { connector: string; accountId: string; owner: string },
  likelyNew: boolean,
  waiting: HoldSubject,
  first?: LeaseResult,
): Step<{ error: SerializedError } | LeaseResult> {
  let deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
  for (let poll = 0; ; poll++) {
    const nowMs = context.df.currentUtcDateTime.getTime();
    const result: ActivityResult<LeaseResult> =
      poll === 0 && first !== undefined
        ? { ok: true, value: first }
        : yield* callActivity<LeaseResult>(
            context,
            ACTIVITIES.acquireAccountLease,
            leaseInput(context, lease, likelyNew && poll === 0),
          );
    if (!result.ok) return { error: result.error };
    if (result.value.acquired) return result.value;
    if (nowMs >= deadline) {
      const held = yield* waitWhileQuarantined(context, waiting);
      if ('error' in held) return held;
      if (held.held) {
        deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
        continue;
      }
      const error: SerializedError = {
        code: 'ACCOUNT_BUSY',
        message:
          `account "${lease.accountId}" on connector "${lease.connector}" is still being changed by ` +
          `${result.value.holder ?? 'another request'} after ${LEASE_WAIT_MS / 60_000} minutes`,
        retryable: true,
        object: lease.accountId,
      };
      return { error };
    }
    yield* waitFor(context, Math.min(leasePollDelay(poll), Math.max(1_000, deadline - nowMs)));
  }
}
