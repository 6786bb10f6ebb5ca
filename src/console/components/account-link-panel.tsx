import { useState } from 'preact/hooks';
import { useApp } from '../app-context';
import type { StepView } from '../api-types';
import { ReasonAction } from './reason-action';

/** What a lookup's ACCOUNT_EXISTS names: the object linked before (gone), the one holding the ID now. */
function refusedLink(steps: readonly StepView[]) {
  for (const step of steps) {
    const details = step.error?.code === 'ACCOUNT_EXISTS' ? step.error.details : undefined;
    const { targetId, linkedTargetId, linked } = details ?? {};
    if (linked === false && typeof targetId === 'string' && typeof linkedTargetId === 'string') {
      return { targetId, linkedTargetId };
    }
  }
  return undefined;
}

/**
 * Under a request whose lookup was refused with ACCOUNT_EXISTS (the object the service linked
 * is gone, another holds the account ID): an operator who found that object is this person's
 * links the account ID to it, with a reason (`POST .../accounts/{accountId}/link`). The
 * service links it only when the target shows exactly that; its refusal is shown as it came.
 */
export function AccountLinkPanel({
  connector,
  accountId,
  steps,
}: {
  connector: string;
  accountId: string;
  steps: readonly StepView[];
}) {
  const { api } = useApp();
  const [done, setDone] = useState<string | undefined>(undefined);
  const refused = refusedLink(steps);
  if (refused === undefined) return null;
  const link = async (reason: string) => {
    const answer = await api.post<{ linked: boolean; note?: string }>(
      `connectors/${encodeURIComponent(connector)}/accounts/${encodeURIComponent(accountId)}/link`,
      { targetId: refused.targetId, reason },
    );
    setDone(
      answer.linked
        ? `Linked to id ${refused.targetId}: send the request again to act on that account.`
        : (answer.note ?? 'Linked already.'),
    );
  };
  return (
    <section class="card" aria-labelledby="link-heading">
      <h2 id="link-heading">Link the account ID</h2>
      <p>
        The account this service linked (id <code>{refused.linkedTargetId}</code>) is gone, and the
        account ID now belongs to id <code>{refused.targetId}</code>. If that account is this
        person's (a rehire), link it; if it is someone else's, choose another account ID.
      </p>
      {done !== undefined ? (
        <p role="status">{done}</p>
      ) : (
        <ReasonAction
          id="link-reason"
          label="Reason (kept with the link)"
          action={`Link to id ${refused.targetId}`}
          busy="Linking…"
          denied="Linking needs the app role Provisioning.Operator."
          failed="The account ID was not linked"
          run={link}
        />
      )}
    </section>
  );
}
