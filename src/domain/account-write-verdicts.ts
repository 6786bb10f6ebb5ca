import type { StepContext } from './step-context';

/** Why a write the target acknowledged and the read-back contradicts is journaled as nothing. */
export function acknowledgedNotMade(action: string, input: StepContext): string {
  return (
    `the target acknowledged the ${action} of account "${input.accountId}", but the read-back ` +
    `shows it was not made: nothing journaled`
  );
}

/**
 * Whether a read-back that shows the account otherwise than an acknowledged write asked
 * refutes the acknowledgment: where reads show writes at once (a visibility window of 0), it
 * shows what the target holds. A lagging target's read may still be behind at the end of its
 * window: there the write stays journaled, and the step fails saying no read showed it.
 * Revision 1 journaled and recorded it everywhere, and its history holds the commit of it
 * (`replaysRevision1`).
 */
export function readRefutes(context: StepContext): boolean {
  return context.capabilities.visibilityWindowMs === 0 && context.replaysRevision1 !== true;
}
