import { useState } from 'preact/hooks';
import { mayOperate, useApp } from '../app-context';
import type { CatalogueRole, JobView, PreviewJob, RequestPlan } from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import { ErrorPanel } from '../components/error-panel';
import { GroupPicker } from '../components/group-picker';
import { JobProgress } from '../components/job-progress';
import { RequestPlanView } from '../components/request-plan';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { navigate } from '../navigation';
import {
  ACTIONS,
  MEMBERSHIP_ACTIONS,
  requestBody,
  usesPassword,
  type Action,
  type DraftAction,
  type RequestDraft,
} from '../request-draft';
import { to } from '../routes';
import { usePolling, useResource } from '../use-resource';

const PROFILE_FIELDS = [
  ['displayName', 'Display name'],
  ['givenName', 'Given name'],
  ['familyName', 'Family name'],
  ['email', 'E-mail'],
] as const;

/** Journaled with every change the request makes: who asked, why, and the case. */
const CONTEXT_FIELDS = [
  ['requestedBy', 'Requested by'],
  ['reason', 'Reason'],
  ['correlationId', 'Correlation ID (ticket, approval)'],
] as const;

let nextKey = 1;

/**
 * A provisioning request for every action, with groups picked from the role catalogue. The
 * password lives in this page's memory only: never in the URL, the history, storage or
 * anything the page shows back, and it is sent once, to the API, in the request body.
 */
export function NewRequestPage({ query }: { query: URLSearchParams }) {
  const { api, caller, connectors } = useApp();
  const [draft, setDraft] = useState<RequestDraft>(() => ({
    connector: query.get('connector') ?? connectors[0]?.name ?? '',
    requestId: '',
    requestedBy: caller.kind === 'principal' ? (caller.name ?? '') : '',
    reason: '',
    correlationId: '',
    accountId: query.get('accountId') ?? '',
    displayName: '',
    givenName: '',
    familyName: '',
    email: '',
    attributes: '',
    actions: [],
  }));
  const [password, setPassword] = useState('');
  // The request's id when the operator gives none: kept for the page's life, so a send whose
  // answer was lost (a gateway timeout) and sent again is the same request, answered as the
  // one already started, never a second run of the same draft.
  const [generatedId] = useState(() => crypto.randomUUID());
  const [adding, setAdding] = useState<Action>('create');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [plan, setPlan] = useState<RequestPlan | undefined>(undefined);
  const [previewJobId, setPreviewJobId] = useState<string | undefined>(undefined);
  const [previewing, setPreviewing] = useState(false);
  const [previewError, setPreviewError] = useState<Error | undefined>(undefined);
  // A preview whose reads were slow runs as a job: read until it ends; its result is the plan.
  const previewJob = useResource(
    () =>
      previewJobId === undefined
        ? Promise.resolve(undefined)
        : api.get<JobView>(`jobs/${previewJobId}`),
    [previewJobId],
  );
  usePolling(previewJob.reload, 1000, previewJob.data?.status === 'running');
  const shownPlan =
    plan ??
    (previewJob.data?.status === 'succeeded' ? (previewJob.data.result as RequestPlan) : undefined);
  const roles = useResource(
    () =>
      draft.connector === ''
        ? Promise.resolve({ roles: [] as CatalogueRole[] })
        : api.get<{ roles: CatalogueRole[] }>(
            `connectors/${encodeURIComponent(draft.connector)}/roles`,
          ),
    [draft.connector],
  );
  const present = (roles.data?.roles ?? []).filter((role) => role.status === 'present');
  const allowed = mayOperate(caller);
  // A change to the draft makes any preview shown a plan of something else: drop it.
  const set = (changes: Partial<RequestDraft>) => {
    setDraft((current) => ({ ...current, ...changes }));
    setPlan(undefined);
    setPreviewJobId(undefined);
  };
  const setAction = (key: number, changes: Partial<DraftAction>) =>
    set({ actions: draft.actions.map((a) => (a.key === key ? { ...a, ...changes } : a)) });
  const move = (index: number, by: number) => {
    const actions = [...draft.actions];
    const [moved] = actions.splice(index, 1);
    if (moved === undefined) return;
    actions.splice(index + by, 0, moved);
    set({ actions });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      const answer = await api.post<{ requestId: string }>(
        'requests',
        requestBody(
          draft.requestId.trim() === '' ? { ...draft, requestId: generatedId } : draft,
          password,
        ),
      );
      setPassword('');
      navigate(to.request(answer.requestId));
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
      setSending(false);
    }
  };

  const preview = async () => {
    setPreviewing(true);
    setPreviewError(undefined);
    setPlan(undefined);
    setPreviewJobId(undefined);
    try {
      const answer = await api.post<RequestPlan | PreviewJob>('requests', {
        ...requestBody(draft, password),
        mode: 'preview',
      });
      if ('steps' in answer) setPlan(answer);
      else setPreviewJobId(answer.jobId);
    } catch (failure) {
      setPreviewError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setPreviewing(false);
    }
  };

  return (
    <>
      <PageHeading title="New request" />
      {allowed ? null : (
        <p class="notice" role="note">
          Your app role lets you view, not submit: the service refuses requests without the role
          Provisioning.Operator.
        </p>
      )}
      <form
        class="request-form"
        method="post"
        onSubmit={(event) => void submit(event)}
        aria-label="New provisioning request"
      >
        <fieldset>
          <legend>Target and account</legend>
          <ConnectorSelect
            id="new-connector"
            connectors={connectors}
            value={draft.connector}
            required
            onChange={(connector) =>
              set({ connector, actions: draft.actions.map((a) => ({ ...a, groups: [] })) })
            }
          />
          <TextField
            id="new-account-id"
            label="Account ID"
            required
            value={draft.accountId}
            onChange={(accountId) => set({ accountId })}
          />
          <div class="field-grid">
            {PROFILE_FIELDS.map(([field, label]) => (
              <TextField
                key={field}
                id={`new-${field}`}
                label={label}
                inputMode={field === 'email' ? 'email' : 'text'}
                value={draft[field]}
                onChange={(value) => set({ [field]: value })}
              />
            ))}
          </div>
          <div class="field">
            <label for="new-attributes">Further attributes (one name=value per line)</label>
            <textarea
              id="new-attributes"
              rows={2}
              value={draft.attributes}
              onInput={(event) => set({ attributes: (event.target as HTMLTextAreaElement).value })}
            />
          </div>
          {usesPassword(draft) ? (
            <div class="field">
              <label for="new-password">Password (for create or set password)</label>
              <input
                id="new-password"
                type="password"
                autocomplete="new-password"
                value={password}
                onInput={(event) => {
                  setPassword((event.target as HTMLInputElement).value);
                  setPlan(undefined);
                }}
              />
            </div>
          ) : null}
          <TextField
            id="new-request-id"
            label="Request ID (optional: the same ID never runs twice)"
            value={draft.requestId}
            onChange={(requestId) => set({ requestId })}
          />
        </fieldset>

        <fieldset>
          <legend>Who asked, and why</legend>
          <div class="field-grid">
            {CONTEXT_FIELDS.map(([field, label]) => (
              <TextField
                key={field}
                id={`new-${field}`}
                label={label}
                value={draft[field]}
                onChange={(value) => set({ [field]: value })}
              />
            ))}
          </div>
        </fieldset>

        <fieldset>
          <legend>Actions, in order</legend>
          {draft.actions.length === 0 ? <p class="muted">No action yet: add one below.</p> : null}
          <ol class="actions">
            {draft.actions.map((action, index) => (
              <li key={action.key}>
                <div class="action-head">
                  <strong>{action.type}</strong>
                  <span class="action-buttons">
                    <button type="button" disabled={index === 0} onClick={() => move(index, -1)}>
                      Up<span class="visually-hidden"> (move action {index + 1})</span>
                    </button>
                    <button
                      type="button"
                      disabled={index === draft.actions.length - 1}
                      onClick={() => move(index, 1)}
                    >
                      Down<span class="visually-hidden"> (move action {index + 1})</span>
                    </button>
                    <button
                      type="button"
                      onClick={() =>
                        set({ actions: draft.actions.filter((a) => a.key !== action.key) })
                      }
                    >
                      Remove<span class="visually-hidden"> action {index + 1}</span>
                    </button>
                  </span>
                </div>
                {MEMBERSHIP_ACTIONS.includes(action.type) ? (
                  roles.data !== undefined && present.length === 0 ? (
                    <p class="notice">
                      No role is imported for this connector yet:{' '}
                      <a href={to.roles(draft.connector)}>import the catalogue</a> to pick groups.
                    </p>
                  ) : (
                    <GroupPicker
                      id={`action-${action.key}`}
                      roles={present}
                      selected={action.groups}
                      onChange={(groups) => setAction(action.key, { groups })}
                    />
                  )
                ) : null}
              </li>
            ))}
          </ol>
          <div class="add-action">
            <div class="field">
              <label for="new-action-type">Action to add</label>
              <select
                id="new-action-type"
                value={adding}
                onChange={(event) => setAdding((event.target as HTMLSelectElement).value as Action)}
              >
                {ACTIONS.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
            </div>
            <button
              type="button"
              onClick={() =>
                set({ actions: [...draft.actions, { key: nextKey++, type: adding, groups: [] }] })
              }
            >
              Add action
            </button>
          </div>
        </fieldset>
        <ErrorPanel error={roles.error} title="The role catalogue could not be read" />
        <ErrorPanel error={error} title="The request was not accepted" />
        <ErrorPanel error={previewError} title="The preview could not be made" />
        <ErrorPanel error={previewJob.error} title="The preview could not be read" />
        {previewJob.data === undefined ? null : (
          <JobProgress job={previewJob.data} label="Preview (slow reads, run as a job)" />
        )}
        {shownPlan === undefined ? null : <RequestPlanView plan={shownPlan} />}
        <div class="form-buttons">
          <button
            type="button"
            disabled={!allowed || previewing || draft.actions.length === 0}
            onClick={() => void preview()}
          >
            {previewing ? 'Reading the target…' : 'Preview (writes nothing)'}
          </button>
          <button
            type="submit"
            class="primary"
            disabled={!allowed || sending || draft.actions.length === 0}
          >
            {sending ? 'Submitting…' : 'Submit request'}
          </button>
        </div>
      </form>
    </>
  );
}
