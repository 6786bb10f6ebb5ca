import type { StepView } from '../api-types';
import { formatDuration, formatTime } from '../format';
import { ExtraFields } from './extra-fields';
import { MembershipMismatch } from './membership-mismatch';
import { Notices } from './notices';
import { StatusBadge } from './status-badge';

const KNOWN = [
  'index',
  'action',
  'groups',
  'state',
  'changes',
  'notices',
  'error',
  'startedAt',
  'finishedAt',
];

/** A planned step's state in the words of a plan: nothing has happened yet. */
const PLANNED: Record<string, string> = {
  succeeded: 'would succeed',
  failed: 'would fail',
  skipped: 'would be skipped',
};

function Step({ step, planned }: { step: StepView; planned: boolean }) {
  const state = planned ? (PLANNED[step.state] ?? step.state) : step.state;
  return (
    <li
      class={`step step-${step.state}`}
      aria-label={`Step ${step.index + 1}: ${step.action}, ${state}`}
    >
      <div class="step-head">
        <span class="step-number" aria-hidden="true">
          {step.index + 1}
        </span>
        <h3>
          {step.action}
          {step.groups === undefined || step.groups.length === 0 ? null : (
            <span class="step-groups"> {step.groups.join(', ')}</span>
          )}
        </h3>
        <StatusBadge status={state} />
      </div>
      {step.startedAt === undefined ? null : (
        <p class="step-time muted">
          Started <time dateTime={step.startedAt}>{formatTime(step.startedAt)}</time>
          {step.finishedAt === undefined ? null : (
            <>, took {formatDuration(step.startedAt, step.finishedAt)}</>
          )}
        </p>
      )}
      {step.changes.length === 0 ? (
        step.state === 'succeeded' ? (
          <p class="muted">
            No change: {planned ? 'the target already holds' : 'already'} as requested.
          </p>
        ) : null
      ) : (
        <div>
          <h4>{planned ? 'Changes it would make' : 'Effective changes'}</h4>
          <ul class="changes">
            {step.changes.map((change, index) => (
              <li key={index}>
                {change.change}
                {change.groupName === undefined && change.groupId === undefined ? null : (
                  <>: {change.groupName ?? change.groupId}</>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      <Notices notices={step.notices} label={`Notices of step ${step.index + 1}`} />
      {step.error === undefined ? null : (
        <div class="step-error" role="group" aria-label={`Error of step ${step.index + 1}`}>
          <p>
            <code>{step.error.code}</code> {step.error.message}
          </p>
          <MembershipMismatch error={step.error} />
        </div>
      )}
      <ExtraFields value={step} known={KNOWN} />
    </li>
  );
}

/**
 * The steps of a request in order, as Entra's on-demand view shows them: each with its
 * state, its effective changes, its notices, when it ran, and on failure its error. `planned`:
 * the steps of a preview, in the conditional (what each would change, the error it would meet).
 */
export function StepTimeline({
  steps,
  planned = false,
}: {
  steps: readonly StepView[];
  planned?: boolean;
}) {
  return (
    <ol class="timeline" aria-label={planned ? 'Planned steps' : 'Steps'}>
      {steps.map((step) => (
        <Step key={step.index} step={step} planned={planned} />
      ))}
    </ol>
  );
}
