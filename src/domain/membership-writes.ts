import type { TargetAccount } from './account';
import { isEffectiveMembershipWrite } from './effective-change';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import { intentKey } from './journal-entry';
import { failedMembershipWrites, lostWriteError, mayHaveBeenApplied } from './lost-answer';
import { chunk } from './chunk';
import { now, parallel, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type MembershipWriteReadBack, type WriteMembershipsInput } from './step-ops';
import { accountNotFound, mayBeLag, type StepContext } from './step-context';
import type { MembershipRead, MembershipWriteAnswer } from './target-answers';
import { nextRereadDelay } from './visibility';

export interface WriteResult {
  answers: MembershipWriteAnswer[];
  /** Why the writes failed: a refusal where the target refused one, else a lost answer. */
  error?: SerializedError;
  /** The first write whose answer was lost: it may have been applied (its changes `unanswered`). */
  lost?: SerializedError;
  /** The read the last write made once answered (`readBack`): none when any write failed. */
  readBack?: IoResult<MembershipRead>;
}

/**
 * Whether a write's answers leave its read back (`readBack`) anything to verify: not where
 * the target did not know the account yet; the step sends those changes again and reads
 * after that.
 */
export function worthReadingBack(answers: readonly MembershipWriteAnswer[]): boolean {
  return answers.every((answer) => answer.outcome !== 'accountNotFound');
}

/**
 * Why the writes failed when it was not only a lost answer: a refusal, or a failure before
 * anything was sent. Undefined when they did not fail, or failed only by lost answers.
 */
export function refusalOf(result: WriteResult): SerializedError | undefined {
  return result.error !== undefined && result.error !== result.lost ? result.error : undefined;
}

/**
 * Writes membership changes: removals, then additions (spec: Membership write procedure,
 * steps 2 and 3), each chunk of at most `membershipWriteBatchSize` one operation. Changes the
 * target refused because it does not know the account yet are sent again on the timer while
 * that may be lag (a new object, graph-behaviour.md); after that the step fails naming it.
 * `label` keeps the intent keys of different write rounds of one step apart. `readBack`: the
 * read the last write call makes once answered, when it is the only call of its phase (a read
 * beside a write still running would not show it); only the last round's counts.
 */
export function* writeMembershipChanges(
  context: StepContext,
  account: TargetAccount,
  changes: { remove: readonly string[]; add: readonly string[] },
  groups: { names: Record<string, string>; writable: ReadonlySet<string> },
  label: string,
  readBack?: WriteMembershipsInput['readBack'],
): Machine<WriteResult> {
  const { names } = groups;
  const answers: MembershipWriteAnswer[] = [];
  let pending = changes;
  for (let round = 0; ; round++) {
    // Lag or absence is judged by when the writes were sent, not by when the answers came.
    const sentAt = yield* now();
    const result = yield* writeOnce(
      context,
      account,
      pending,
      groups,
      `${label}.${round}`,
      readBack,
    );
    answers.push(...result.answers);
    // The target names a group it was only known to the request by id.
    for (const answer of result.answers) {
      if ((names[answer.groupId] ?? answer.groupId) === answer.groupId) {
        names[answer.groupId] = answer.groupName;
      }
    }
    if (result.error !== undefined) return { ...result, answers };
    const unknown = result.answers.filter((answer) => answer.outcome === 'accountNotFound');
    if (unknown.length === 0) {
      return result.readBack === undefined ? { answers } : { answers, readBack: result.readBack };
    }
    if (!mayBeLag(context, sentAt)) {
      return {
        answers,
        error: accountNotFound(context, ': the target does not know it as a group member'),
      };
    }
    yield* wait(nextRereadDelay(round));
    pending = {
      remove: unknown.filter((a) => a.change === 'removed').map((a) => a.groupId),
      add: unknown.filter((a) => a.change === 'added').map((a) => a.groupId),
    };
  }
}

function* writeOnce(
  context: StepContext,
  account: TargetAccount,
  changes: { remove: readonly string[]; add: readonly string[] },
  groups: { names: Record<string, string>; writable: ReadonlySet<string> },
  label: string,
  readBack: WriteMembershipsInput['readBack'],
): Machine<WriteResult> {
  const answers: MembershipWriteAnswer[] = [];
  const size = Math.max(1, context.capabilities.membershipWriteBatchSize);
  const phases = (['remove', 'add'] as const).filter((phase) => changes[phase].length > 0);
  let carried: IoResult<MembershipRead> | undefined;
  for (const phase of phases) {
    const chunks = chunk(changes[phase], size);
    const foldHere = readBack !== undefined && phase === phases.at(-1) && chunks.length === 1;
    const inputs: WriteMembershipsInput[] = chunks.map((ids, index) => ({
      connector: context.connector,
      account,
      add: phase === 'add' ? ids : [],
      remove: phase === 'remove' ? ids : [],
      // A copy: `names` grows later, and an operation's input must not change once asked for.
      names: pick(groups.names, ids),
      writable: ids.filter((id) => groups.writable.has(id)),
      intentKey: intentKey(
        context.requestId,
        context.step,
        STEP_OPS.writeMemberships,
        label,
        phase,
        String(index),
      ),
      ...(foldHere ? { readBack } : {}),
    }));
    const results = yield* parallel<MembershipWriteAnswer[] | MembershipWriteReadBack>(
      STEP_OPS.writeMemberships,
      inputs,
    );
    let refused: SerializedError | undefined;
    let lost: SerializedError | undefined;
    for (const [index, result] of results.entries()) {
      if (result.ok) {
        const { value } = result;
        if (Array.isArray(value)) answers.push(...value);
        else {
          answers.push(...value.answers);
          carried = value.readBack;
        }
      } else {
        // A write call that failed in part says what it did write: journaled too.
        const written = partlyWritten(result.error);
        answers.push(...written);
        // What it sent and got no answer for may be in place: the read-back tells. What the
        // target refused is an answer: nothing of it was applied.
        const maybe = maybeApplied(inputs[index]!, result.error, written);
        answers.push(...maybe.answers);
        lost ??= maybe.lost;
        if (maybe.lost === undefined || !mayHaveBeenApplied(result.error)) refused ??= result.error;
      }
    }
    const error = refused ?? lost;
    if (error !== undefined) return { answers, error, ...(lost === undefined ? {} : { lost }) };
  }
  return carried === undefined ? { answers } : { answers, readBack: carried };
}

/**
 * The changes of one failed write call that may have been applied, as `unanswered` answers,
 * and the error of the first of them. Where the call's error lists its failed changes, only
 * those whose answer was lost; else, where the whole call may have been applied, every change
 * no part of its answer covers.
 */
function maybeApplied(
  input: { add: readonly string[]; remove: readonly string[]; names: Record<string, string> },
  error: SerializedError,
  written: readonly MembershipWriteAnswer[],
): { answers: MembershipWriteAnswer[]; lost?: SerializedError } {
  const failed = failedMembershipWrites(error);
  if (failed === undefined) {
    return mayHaveBeenApplied(error)
      ? { answers: unanswered(input, written), lost: error }
      : { answers: [] };
  }
  const lostWrites = failed.filter((write) => write.maybeApplied);
  const answers = lostWrites.map((write) => ({
    groupId: write.groupId,
    groupName: input.names[write.groupId] ?? write.groupId,
    change: write.change,
    outcome: 'unanswered' as const,
    maybeOurs: true,
  }));
  if (lostWrites.length === 0) return { answers };
  return { answers, lost: mayHaveBeenApplied(error) ? error : lostWriteError(lostWrites[0]!) };
}

/**
 * The effective changes among the answers (DESIGN invariant 9), once per group and change
 * however many times the change was written. `stateBefore` tells whether the account was a
 * member of a group before the step (undefined: nothing tells).
 */
export function effectiveChanges(
  answers: readonly MembershipWriteAnswer[],
  stateBefore: (groupId: string) => boolean | undefined,
  names: Record<string, string>,
): EffectiveChange[] {
  const effective = new Map<string, EffectiveChange>();
  for (const answer of answers) {
    const key = `${answer.change}\u0000${answer.groupId}`;
    if (effective.has(key)) continue;
    if (!isEffectiveMembershipWrite(answer, stateBefore(answer.groupId))) continue;
    effective.set(key, {
      change: answer.change === 'added' ? 'member added' : 'member removed',
      groupId: answer.groupId,
      groupName: names[answer.groupId] ?? answer.groupName,
    });
  }
  return [...effective.values()];
}

/**
 * `added:g` / `removed:g` for every change the target answered (known the account), or was
 * sent and its answer lost: the read-back judges those, they are not sent again.
 */
export function settledChanges(answers: readonly MembershipWriteAnswer[]): Set<string> {
  return new Set(
    answers
      .filter((answer) => answer.outcome !== 'accountNotFound')
      .map((answer) => `${answer.change}:${answer.groupId}`),
  );
}

/**
 * The changes of one write call that failed after it may have been applied, and that no
 * part of its answer covers: `unanswered`, this request's own (the write operation claims its
 * intent before it sends: `maybeOurs`).
 */
function unanswered(
  input: { add: readonly string[]; remove: readonly string[]; names: Record<string, string> },
  written: readonly MembershipWriteAnswer[],
): MembershipWriteAnswer[] {
  const answered = new Set(written.map((answer) => `${answer.change}:${answer.groupId}`));
  return [
    ...input.remove.map((groupId) => ({ groupId, change: 'removed' as const })),
    ...input.add.map((groupId) => ({ groupId, change: 'added' as const })),
  ]
    .filter((change) => !answered.has(`${change.change}:${change.groupId}`))
    .map((change) => ({
      ...change,
      groupName: input.names[change.groupId] ?? change.groupId,
      outcome: 'unanswered' as const,
      maybeOurs: true,
    }));
}

function partlyWritten(error: SerializedError): MembershipWriteAnswer[] {
  const written = error.details?.written;
  return Array.isArray(written) ? (written as MembershipWriteAnswer[]) : [];
}

function pick(names: Record<string, string>, ids: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const id of ids) if (names[id] !== undefined) picked[id] = names[id];
  return picked;
}
