import type { EnabledBefore } from './enabled-before';
import { foundTooLate, type LostEnabledWrite } from './lost-writes';
import type { StepContext } from './step-context';
import type { StepOutcome } from './step-outcome';

/**
 * A lock or unlock's outcome as the record's lost lock or unlock sees it (lost-writes.ts).
 * The read before this write that showed an earlier request's unconfirmed lock or unlock
 * applied (`unconfirmedShownAt`) finds it: journaled as that request's change when the state
 * before it was known to be the other, else settled with a notice. This write's own answer
 * lost and unsettled (`enabledUnconfirmed`): kept in the record for a later read to find,
 * with whether the state before it was known to be the other (`effective` on evidence). A
 * read more than an hour after the lost write (`LOST_WRITE_FOUND_WITHIN_MS`) settles it and
 * journals nothing: someone else may have made the change.
 */
export function withEnabledFindings(
  input: StepContext,
  before: EnabledBefore,
  enabled: boolean,
  effective: boolean,
  outcome: StepOutcome,
): StepOutcome {
  let next = outcome;
  const lost = input.handle.record?.lostEnabledWrite;
  const unconfirmed = input.handle.record?.enabledUnconfirmed;
  if (
    'evidence' in before &&
    before.unconfirmedShownAt !== undefined &&
    lost !== undefined &&
    unconfirmed !== undefined &&
    lost.change === changeOf(unconfirmed)
  ) {
    const by = `request "${input.requestId}" step ${input.step}: the read before its write`;
    const shownAt = new Date(before.unconfirmedShownAt).toISOString();
    // Settled whatever becomes of this write: a step that records nothing of its own records
    // the state the read showed, so that no later read finds the same write again.
    const record = next.record ?? {};
    if (record.enabled === undefined && record.enabledUnconfirmed === undefined) {
      next = { ...next, record: { ...record, enabled: { value: unconfirmed, at: shownAt } } };
    }
    const what = `the ${unconfirmed ? 'unlock' : 'lock'} sent by request "${lost.requestId}" step ${lost.step} (its answer was lost)`;
    next = foundTooLate(lost, before.unconfirmedShownAt)
      ? {
          ...next,
          notices: [
            ...next.notices,
            `${what}: ${by} shows it applied, but more than an hour after that write: someone ` +
              `else may have made it, so it is not journaled as the service's change`,
          ],
        }
      : lost.notInPlaceBefore
        ? {
            ...next,
            foundLater: [...(next.foundLater ?? []), { write: lost, by, at: shownAt }],
            notices: [
              ...next.notices,
              `${what}: ${by} shows it applied: journaled as that request's change, found later`,
            ],
          }
        : {
            ...next,
            notices: [
              ...next.notices,
              `${what}: ${by} shows it applied, but the state before that write was not known: ` +
                `someone else may have made it, so it is not journaled as the service's change`,
            ],
          };
  }
  const update = next.record?.enabledUnconfirmed;
  if (update === undefined || next.record === undefined) return next;
  const evidence = 'evidence' in before ? before.evidence : undefined;
  const known = evidence?.seen !== undefined || evidence?.recorded !== undefined;
  // A write whose change was in place before it changes nothing, whatever became of it.
  if (known && !effective) return next;
  const write: LostEnabledWrite = {
    change: changeOf(enabled),
    requestId: input.requestId,
    step: input.step,
    at: update.at,
    notInPlaceBefore: known && effective,
  };
  return { ...next, record: { ...next.record, lostEnabledWrite: write } };
}

function changeOf(enabled: boolean): LostEnabledWrite['change'] {
  return enabled ? 'account unlocked' : 'account locked';
}
