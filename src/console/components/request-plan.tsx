import type { RequestPlan } from '../api-types';
import { formatTime } from '../format';
import { Notices } from './notices';
import { StatusBadge } from './status-badge';
import { StepTimeline } from './step-timeline';

/**
 * A request's preview: how it would end, each step's changes and the error it would meet, and
 * what the plan rests on (reads that may lag, a password checked and discarded). Drawn apart
 * from a request's timeline so that no one takes it for something that happened.
 */
export function RequestPlanView({ plan }: { plan: RequestPlan }) {
  return (
    <section class="plan" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Preview: nothing was written</h2>
      <p>
        As the target reads now (<time dateTime={plan.readAt}>{formatTime(plan.readAt)}</time>), the
        request for {plan.accountId} on {plan.connector}{' '}
        <StatusBadge status={plan.status === 'succeeded' ? 'would succeed' : 'would fail'} />.
      </p>
      <Notices notices={plan.notices} label="What the preview rests on" />
      <StepTimeline steps={plan.steps} planned />
    </section>
  );
}
