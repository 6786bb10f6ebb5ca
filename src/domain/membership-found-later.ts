import { readRefutes } from './account-write-verdicts';
import type { AccountRecordUpdate } from './account-record';
import {
  judgeLostWrites,
  lostWritesAnsweredInPlace,
  lostWritesOf,
  mergeFindings,
  type FoundLaterChange,
  type LostWrite,
  type LostWriteFindings,
} from './lost-writes';
import type { MembershipWritePlan } from './membership-plan';
import type { ReadOutcome } from './membership-read-back';
import { iso, type StepContext } from './step-context';
import type { MembershipWriteAnswer } from './target-answers';

const NONE: LostWriteFindings = { found: [], settled: [], notices: [] };

/**
 * What a membership step's read before its writes shows of the record's lost writes (earlier
 * grants and revokes whose answers were lost, lost-writes.ts). Only the groups the read
 * covered are judged: every direct group where the target reads them all, else the groups
 * the step reads.
 */
export function lostWritesFoundBefore(
  input: StepContext,
  readBefore: boolean,
  read: ReadOutcome,
  plan: MembershipWritePlan,
  readAtMs: number,
): LostWriteFindings {
  const lost = input.handle.record?.lostWrites;
  if (!readBefore || lost === undefined || lost.length === 0) return NONE;
  const covered =
    input.capabilities.membershipReadScope === 'all'
      ? new Set(lost.map((write) => write.groupId))
      : new Set(Object.keys(plan.expected));
  return judgeLostWrites(
    lost,
    {
      memberOf: new Set(read.groupIds),
      visible: read.visible,
      unproven: new Set(read.unproven ?? []),
      covered,
      readAtMs,
      refutes: readRefutes(input),
      by: foundBy(input, 'the read before its writes'),
    },
    input.handle.record?.groupWrites,
    input.capabilities.visibilityWindowMs,
  );
}

/**
 * The end of a membership step as the record's lost writes see it: those found before its
 * writes, and those its writes' own answers show in place ("already a member", "not a
 * member", answered to this step's own first attempt: an earlier attempt of this step whose
 * answer was lost is this step's change, journaled as its own); the record learns which are
 * settled, and the step's own lost writes (`lost`) are kept for a later step to find.
 */
export function foundInMembershipStep(
  input: StepContext,
  before: LostWriteFindings,
  answers: readonly MembershipWriteAnswer[],
  atMs: number,
  step: {
    record: AccountRecordUpdate;
    lost: readonly MembershipWriteAnswer[];
    stateBefore: (groupId: string) => boolean | undefined;
    names: Record<string, string>;
  },
): { foundLater: FoundLaterChange[]; notices: string[]; record: AccountRecordUpdate } {
  const kept = (input.handle.record?.lostWrites ?? []).filter(
    (write) => !before.settled.includes(write.groupId),
  );
  const inPlace = answers.filter((answer) => answer.outcome === 'already' && !answer.maybeOurs);
  const answered = lostWritesAnsweredInPlace(
    kept,
    inPlace,
    foundBy(input, "the target's answer to its write"),
    atMs,
  );
  const findings = mergeFindings(before, answered);
  const lostWrites = lostWritesOf(step.lost, step.stateBefore, step.names, input, iso(atMs));
  return {
    foundLater: findings.found,
    notices: answered.notices,
    record: withFindings(step.record, findings, lostWrites, atMs),
  };
}

/**
 * The record update with what the findings settled: a lost grant found in place is a group
 * the service granted (assigned again), a lost revoke found in place one it revoked, unless
 * this step's own writes of the group say otherwise; every settled group is known again.
 */
function withFindings(
  update: AccountRecordUpdate,
  findings: LostWriteFindings,
  lostWrites: readonly LostWrite[],
  atMs: number,
): AccountRecordUpdate {
  if (findings.settled.length === 0 && lostWrites.length === 0) return update;
  const own = new Set([...(update.granted ?? []), ...(update.revoked ?? [])]);
  const ours = findings.found.filter((found) => !own.has(found.write.groupId));
  const granted = ours.filter((f) => f.write.change === 'member added').map((f) => f.write.groupId);
  const revoked = ours
    .filter((f) => f.write.change === 'member removed')
    .map((f) => f.write.groupId);
  const next: AccountRecordUpdate = { ...update };
  if (granted.length > 0) next.granted = [...(update.granted ?? []), ...granted];
  if (revoked.length > 0) next.revoked = [...(update.revoked ?? []), ...revoked];
  if (granted.length + revoked.length > 0) next.groupsAt ??= iso(atMs);
  if (findings.settled.length > 0) next.settledLostWrites = findings.settled;
  if (lostWrites.length > 0) next.lostWrites = [...lostWrites];
  return next;
}

/** What found a lost write, for its journal entry's note. */
function foundBy(input: StepContext, what: string): string {
  return `request "${input.requestId}" step ${input.step}: ${what}`;
}
