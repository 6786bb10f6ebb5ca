import { describeGroup } from './group';
import { journalEntryKey, type JournalEntry } from './journal-entry';
import { requestContextOf, type RequestContext } from './request-context';
import type { StepOutcome } from './step-outcome';
import type { MembershipWriteAnswer } from './target-answers';

/**
 * A grant or revoke of the service whose answer was lost and that no read settled (its step
 * ended "could not tell"), kept in the account's record until a later read or write settles
 * it (DESIGN invariant 9: "the service's own record of what it last wrote"). A later read
 * that finds in place what it asked for, where the read before it showed that was not so,
 * makes it an effective change of the request that sent it: journaled then, once.
 */
export interface LostWrite extends SentWrite {
  change: 'member added' | 'member removed';
  groupId: string;
  groupName: string;
}

/** A lock or unlock of the service whose answer was lost and that no read settled (`enabledUnconfirmed`). */
export interface LostEnabledWrite extends SentWrite {
  change: 'account locked' | 'account unlocked';
}

/** What every lost write keeps: who sent it, when, and what the state before it was. */
export interface SentWrite {
  /** The request and step that sent it: the journal entry is theirs. */
  requestId: string;
  step: number;
  /** When its step ended (ISO): the time its journal entry carries, whoever finds it. */
  at: string;
  /**
   * The read before the write showed the change was not in place (true). False: nothing
   * told (a member list the server may cut short, a read that could not vouch for it): a
   * later finding cannot tell the write from the state before it, and is not journaled.
   */
  notInPlaceBefore: boolean;
  /** Who asked for the request that sent it, and why: its journal entry carries them. */
  context?: RequestContext;
}

/** A lost write a later read or write answer found in place: what journals it, and how. */
export interface FoundLaterChange<W extends SentWrite = LostWrite | LostEnabledWrite> {
  write: W & Pick<LostWrite | LostEnabledWrite, 'change'>;
  /** What found it: 'request "r2" step 0: the read before its writes'. */
  by: string;
  /** When (ISO). */
  at: string;
}

/**
 * How long after a lost write (its `at`) a read may still find it in place. Past that, no
 * replica still lags it, and a change in place is as likely someone else's (a change by
 * hand) as the write's: a lost write older than this is never found later, only settled.
 */
export const LOST_WRITE_FOUND_WITHIN_MS = 60 * 60_000;

/** Whether a finding at `atMs` comes too late to be the lost write's: see {@link LOST_WRITE_FOUND_WITHIN_MS}. */
export function foundTooLate(write: SentWrite, atMs: number): boolean {
  return atMs - Date.parse(write.at) >= LOST_WRITE_FOUND_WITHIN_MS;
}

/** How many lost writes a record keeps: the newest, each settled by the next write of its group. */
export const LOST_WRITES_KEPT = 100;

/** What a step learned of the record's lost writes: which it found in place, which it settled. */
export interface LostWriteFindings {
  found: FoundLaterChange<LostWrite>[];
  /** Groups whose lost writes are settled without a journal entry (notices say why). */
  settled: string[];
  notices: string[];
}

/** What one read of the account's memberships showed, as the lost writes are judged against it. */
export interface MembershipEvidence {
  /** Groups the read shows the account in. */
  memberOf: ReadonlySet<string>;
  /** Whether the read vouches for what it shows (a new account's read may not). */
  visible: boolean;
  /** Groups whose "not a member" rests on nothing the target vouches for. */
  unproven: ReadonlySet<string>;
  /** Groups the read covered: a lost write of another group is not judged. */
  covered: ReadonlySet<string>;
  /** When the read was made (ms). */
  readAtMs: number;
  /** Whether a read that does not show a change proves it was not applied (SCIM: reads show writes at once). */
  refutes: boolean;
  /** What made the read, for the note: 'request "r2" step 0: the read before its writes'. */
  by: string;
}

/**
 * Judges the record's lost writes against a read (DESIGN invariant 9). A lost write whose
 * change the read shows in place is found, and journaled as its own request's when the read
 * before it showed the change not in place; a read made less than the visibility window
 * after the service's own opposite write of the group may show the state from before that
 * write, and finds nothing. Where the read before it told nothing, the finding is settled
 * with a notice and not journaled as the service's: someone else may have made the change.
 * On a target whose reads show writes at once (`refutes`), or where the read was made at
 * least the visibility window after the lost write, a read that shows the change not in place
 * proves the lost write was not applied: it is settled, so that someone else's change later
 * is never taken for it. A lost write older than {@link LOST_WRITE_FOUND_WITHIN_MS} that a
 * read shows in place is settled and not journaled: someone else may have made the change.
 *
 * @example
 * judgeLostWrites(record.lostWrites, evidence, record.groupWrites, 30_000);
 */
export function judgeLostWrites(
  lost: readonly LostWrite[] | undefined,
  evidence: MembershipEvidence,
  groupWrites: Record<string, { member: boolean; at: string }> | undefined,
  windowMs: number,
): LostWriteFindings {
  const findings: LostWriteFindings = { found: [], settled: [], notices: [] };
  if (!evidence.visible) return findings;
  for (const write of lost ?? []) {
    if (!evidence.covered.has(write.groupId)) continue;
    const target = write.change === 'member added';
    const member = evidence.memberOf.has(write.groupId);
    if (!member && evidence.unproven.has(write.groupId)) continue;
    const own = groupWrites?.[write.groupId];
    const mayLag =
      own !== undefined &&
      own.member !== target &&
      evidence.readAtMs - Date.parse(own.at) < windowMs;
    if (member === target) {
      if (mayLag) continue;
      settleFound(findings, write, evidence.by, evidence.readAtMs);
    } else if (evidence.refutes || evidence.readAtMs - Date.parse(write.at) >= windowMs) {
      findings.settled.push(write.groupId);
      findings.notices.push(
        `${describeLost(write)}: ${evidence.by} shows it not in place: it was not applied, ` +
          `and nothing is journaled for it`,
      );
    }
  }
  return findings;
}

/**
 * The record's lost writes that a write's own answer ("already a member", "not a member")
 * shows in place: found as {@link judgeLostWrites} finds them, whatever a read may lag (one
 * older than {@link LOST_WRITE_FOUND_WITHIN_MS} settled, never found).
 */
export function lostWritesAnsweredInPlace(
  lost: readonly LostWrite[] | undefined,
  inPlace: readonly { groupId: string; change: 'added' | 'removed' }[],
  by: string,
  atMs: number,
): LostWriteFindings {
  const findings: LostWriteFindings = { found: [], settled: [], notices: [] };
  for (const write of lost ?? []) {
    const shown = inPlace.some(
      (answer) =>
        answer.groupId === write.groupId &&
        (answer.change === 'added') === (write.change === 'member added'),
    );
    if (shown) settleFound(findings, write, by, atMs);
  }
  return findings;
}

function settleFound(findings: LostWriteFindings, write: LostWrite, by: string, atMs: number) {
  findings.settled.push(write.groupId);
  if (foundTooLate(write, atMs)) {
    findings.notices.push(
      `${describeLost(write)}: ${by} shows it in place, but more than an hour after that ` +
        `write: someone else may have made it, so it is not journaled as the service's change`,
    );
  } else if (write.notInPlaceBefore) {
    const at = new Date(atMs).toISOString();
    findings.found.push({ write, by, at });
    findings.notices.push(
      `${describeLost(write)}: ${by} shows it in place: journaled as that request's change, ` +
        `found later`,
    );
  } else {
    findings.notices.push(
      `${describeLost(write)}: ${by} shows it in place, but the read before that write could ` +
        `not tell whether it was so already: someone else may have made it, so it is not ` +
        `journaled as the service's change`,
    );
  }
}

/** Two sets of findings as one: `b` judged the lost writes `a` left unsettled. */
export function mergeFindings(a: LostWriteFindings, b: LostWriteFindings): LostWriteFindings {
  return {
    found: [...a.found, ...b.found],
    settled: [...a.settled, ...b.settled],
    notices: [...a.notices, ...b.notices],
  };
}

/**
 * The journal entries of lost writes found later: each under its own request, step and
 * time, so that its key and row are the same whoever finds it and however often
 * (DESIGN invariant 1), with what found it and when.
 *
 * @example
 * foundLaterEntries('hr', 'ada', [{ write, by: 'request "r2" step 0: ...', at }]);
 */
export function foundLaterEntries(
  connector: string,
  accountId: string,
  found: readonly FoundLaterChange[],
): JournalEntry[] {
  return found.map(({ write, by, at }) => ({
    key: journalEntryKey(
      write.requestId,
      write.step,
      write.change,
      'groupId' in write ? write.groupId : undefined,
    ),
    connector,
    accountId,
    requestId: write.requestId,
    step: write.step,
    change: write.change,
    ...('groupId' in write ? { groupId: write.groupId, groupName: write.groupName } : {}),
    ...requestContextOf(write.context ?? {}),
    at: write.at,
    foundBy: by,
    foundAt: at,
  }));
}

/** The lost writes of an update stamped with the context of the request that sent them. */
function withContext(writes: readonly LostWrite[], context: RequestContext): LostWrite[] {
  const stamped = requestContextOf(context);
  if (Object.keys(stamped).length === 0) return [...writes];
  return writes.map((write) => ({ ...write, context: stamped }));
}

/**
 * The record's lost writes after an update: those of groups the update settles (granted,
 * revoked, unconfirmed anew, or `settled`) dropped, the update's own added; the newest kept.
 */
export function lostWritesAfter(
  kept: readonly LostWrite[] | undefined,
  update: {
    granted?: readonly string[];
    revoked?: readonly string[];
    unconfirmedGroups?: readonly string[];
    settledLostWrites?: readonly string[];
    lostWrites?: readonly LostWrite[];
  },
): LostWrite[] | undefined {
  const dropped = new Set([
    ...(update.granted ?? []),
    ...(update.revoked ?? []),
    ...(update.unconfirmedGroups ?? []),
    ...(update.settledLostWrites ?? []),
  ]);
  const next = [
    ...(kept ?? []).filter((write) => !dropped.has(write.groupId)),
    ...(update.lostWrites ?? []),
  ].slice(-LOST_WRITES_KEPT);
  return next.length === 0 ? undefined : next;
}

function describeLost(write: LostWrite): string {
  const what = write.change === 'member added' ? 'grant of' : 'revoke of';
  return (
    `the ${what} ${describeGroup({ id: write.groupId, displayName: write.groupName })} sent by ` +
    `request "${write.requestId}" step ${write.step} (its answer was lost)`
  );
}

/**
 * The lost writes a step leaves in the record: its grants and revokes whose answer was lost
 * and that no read settled (`unanswered`), each with what the state before showed. One the
 * state before shows in place already changes nothing whatever became of it: none.
 *
 * @example
 * lostWritesOf(unconfirmed, (id) => seen.has(id), names, { requestId: 'r1', step: 0 }, at);
 */
export function lostWritesOf(
  unconfirmed: readonly MembershipWriteAnswer[],
  stateBefore: (groupId: string) => boolean | undefined,
  names: Record<string, string>,
  sent: { requestId: string; step: number },
  at: string,
): LostWrite[] {
  const writes = new Map<string, LostWrite>();
  for (const answer of unconfirmed) {
    if (answer.outcome !== 'unanswered') continue;
    const target = answer.change === 'added';
    const before = stateBefore(answer.groupId);
    if (before === target) continue;
    writes.set(answer.groupId, {
      change: target ? 'member added' : 'member removed',
      groupId: answer.groupId,
      groupName: names[answer.groupId] ?? answer.groupName,
      requestId: sent.requestId,
      step: sent.step,
      at,
      notInPlaceBefore: before !== undefined,
    });
  }
  return [...writes.values()];
}

/**
 * A step's outcome with its lost writes stamped with the request's context (who asked, why,
 * under which case): the journal entry a later finder writes for one carries it.
 */
export function withLostWriteContext(outcome: StepOutcome, context: RequestContext): StepOutcome {
  const record = outcome.record;
  if (record === undefined) return outcome;
  const stamped = requestContextOf(context);
  if (Object.keys(stamped).length === 0) return outcome;
  const { lostWrites, lostEnabledWrite } = record;
  if (lostWrites === undefined && lostEnabledWrite === undefined) return outcome;
  return {
    ...outcome,
    record: {
      ...record,
      ...(lostWrites === undefined ? {} : { lostWrites: withContext(lostWrites, stamped) }),
      ...(lostEnabledWrite === undefined
        ? {}
        : { lostEnabledWrite: { ...lostEnabledWrite, context: stamped } }),
    },
  };
}
