import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { mayOperate, useApp } from '../app-context';
import { ErrorPanel } from './error-panel';
import { TextField } from './text-field';

/**
 * An operator's action that needs a reason (kept with what it does): the reason field, the
 * button (while sending, its busy label), a hint beside it, and the service's refusal as it
 * came. Without the operator role, only why it cannot be done.
 */
export function ReasonAction({
  id,
  label,
  action,
  busy,
  denied,
  failed,
  hint,
  run,
}: {
  id: string;
  label: string;
  action: string;
  busy: string;
  denied: string;
  failed: string;
  hint?: ComponentChildren;
  /** Does the action with the reason given; throws the service's refusal. */
  run: (reason: string) => Promise<void>;
}) {
  const { caller } = useApp();
  const [reason, setReason] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  if (!mayOperate(caller)) return <p class="muted">{denied}</p>;
  const send = async () => {
    setSending(true);
    setError(undefined);
    try {
      await run(reason);
      setReason('');
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setSending(false);
    }
  };
  return (
    <>
      <TextField id={id} label={label} value={reason} onChange={setReason} required />
      <button
        type="button"
        class="primary"
        disabled={sending || reason.trim() === ''}
        onClick={() => void send()}
      >
        {sending ? busy : action}
      </button>
      {hint === undefined ? null : <> {hint}</>}
      <ErrorPanel error={error} title={failed} />
    </>
  );
}
