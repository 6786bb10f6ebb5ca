import { useEffect, useState } from 'preact/hooks';
import { mayOperate, useApp } from '../app-context';
import type {
  DriftFinding,
  DriftPage as DriftPageBody,
  DriftRestoreAnswer,
  DriftRestorePreview,
  DriftType,
  JobView,
} from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import {
  ReconciliationOutcome,
  RestorePreview,
  RestoresStarted,
  type ReconciliationSummary,
} from '../components/drift-outcomes';
import { ErrorPanel } from '../components/error-panel';
import { JobProgress } from '../components/job-progress';
import { PageHeading } from '../components/page-heading';
import { Pager } from '../components/pager';
import { ScrollTable } from '../components/scroll-table';
import { TextField } from '../components/text-field';
import { csvDownloaded, downloadText } from '../download';
import { formatTime } from '../format';
import { navigate } from '../navigation';
import { to } from '../routes';
import { usePolling, useResource } from '../use-resource';

const PAGE = 50;

const TYPES: { type: DriftType; label: string }[] = [
  { type: 'memberAddedOutside', label: 'Member added outside' },
  { type: 'memberRemovedOutside', label: 'Member removed outside' },
  { type: 'accountDeletedOutside', label: 'Account deleted outside' },
  { type: 'accountStateChangedOutside', label: 'Account state changed outside' },
  { type: 'unlinkedMember', label: 'Unlinked member' },
];

const labelOf = (type: DriftType) => TYPES.find((t) => t.type === type)?.label ?? type;

/** What the service may turn into a request: an open finding about an account it owns. */
function restorable(finding: DriftFinding): boolean {
  return (
    finding.status === 'open' &&
    finding.type !== 'unlinkedMember' &&
    finding.type !== 'accountDeletedOutside'
  );
}

function stateWord(enabled: boolean | undefined): string {
  return enabled === undefined ? '?' : enabled ? 'enabled' : 'locked';
}

/**
 * The drift report of a connector (issue 18): what its reconciliation found changed outside
 * the service, filtered and paged as the API does, as CSV, a reconciliation started from the
 * page, and chosen findings restored as ordinary requests.
 */
export function DriftPage({ query }: { query: URLSearchParams }) {
  const { api, caller, connectors } = useApp();
  const reconcilable = connectors.filter((c) => c.reconciliationJobType !== undefined);
  const filters = {
    connector: query.get('connector') ?? reconcilable[0]?.name ?? '',
    type: query.get('type') ?? '',
    accountId: query.get('accountId') ?? '',
    groupId: query.get('groupId') ?? '',
    status: query.get('status') ?? 'open',
  };
  const page = query.get('page') ?? undefined;
  const path = `connectors/${encodeURIComponent(filters.connector)}/drift`;
  const apiFilter = { ...filters, connector: undefined };
  const [form, setForm] = useState(filters);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<Error | undefined>(undefined);
  const [restored, setRestored] = useState<DriftRestoreAnswer | undefined>(undefined);
  const [previewed, setPreviewed] = useState<DriftRestorePreview | undefined>(undefined);
  const [exporting, setExporting] = useState<string | undefined>(undefined);
  const report = useResource(
    () =>
      filters.connector === ''
        ? Promise.resolve(undefined)
        : api.get<DriftPageBody>(path, { ...apiFilter, limit: PAGE, continuationToken: page }),
    [query.toString()],
  );
  const job = useResource(
    () => (jobId === undefined ? Promise.resolve(undefined) : api.get<JobView>(`jobs/${jobId}`)),
    [jobId],
  );
  const running = job.data?.status === 'running' || (jobId !== undefined && job.data === undefined);
  usePolling(() => job.reload(), 1000, running);
  const finished =
    job.data !== undefined && job.data.status !== 'running' ? job.data.jobId : undefined;
  useEffect(() => {
    if (finished !== undefined) report.reload();
  }, [finished]);

  const act = async (what: () => Promise<void>) => {
    setActionError(undefined);
    try {
      await what();
    } catch (error) {
      setActionError(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const reconcile = () =>
    act(async () => {
      const started = await api.post<{ jobId: string }>(
        `connectors/${encodeURIComponent(filters.connector)}/reconciliations`,
      );
      setJobId(started.jobId);
    });
  const preview = () =>
    act(async () => {
      setRestored(undefined);
      setPreviewed(
        await api.post<DriftRestorePreview>(`${path}/restore`, {
          findingIds: [...chosen],
          mode: 'preview',
        }),
      );
    });
  const restore = () =>
    act(async () => {
      setPreviewed(undefined);
      const answer = await api.post<DriftRestoreAnswer>(`${path}/restore`, {
        findingIds: [...chosen],
      });
      setRestored(answer);
      setChosen(new Set());
      report.reload();
    });
  const exportCsv = () =>
    act(async () => {
      setExporting('Making the CSV…');
      try {
        const csv = await api.getCsv(path, apiFilter);
        downloadText(
          `drift-${filters.connector}-${new Date().toISOString().slice(0, 10)}.csv`,
          csv.text,
          'text/csv',
        );
        setExporting(csvDownloaded(csv, 'findings'));
      } catch (error) {
        setExporting(undefined);
        throw error;
      }
    });

  const findings = report.data?.findings ?? [];
  const operator = mayOperate(caller);
  const info = reconcilable.find((c) => c.name === filters.connector);
  return (
    <>
      <PageHeading title="Drift" />
      <p class="muted">
        What the targets hold that the service did not put there, and what was undone behind its
        back, as the last reconciliation confirmed it. Closed findings stay for the record.
      </p>
      <form
        class="filters"
        aria-label="Filter the drift report"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(to.drift(form));
        }}
      >
        <ConnectorSelect
          id="drift-connector"
          connectors={reconcilable}
          value={form.connector}
          onChange={(connector) => setForm({ ...form, connector })}
        />
        <div class="field">
          <label for="drift-type">Type of finding</label>
          <select
            id="drift-type"
            value={form.type}
            onChange={(event) =>
              setForm({ ...form, type: (event.target as HTMLSelectElement).value })
            }
          >
            <option value="">Any finding</option>
            {TYPES.map(({ type, label }) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <TextField
          id="drift-account"
          label="Account ID"
          value={form.accountId}
          onChange={(value) => setForm({ ...form, accountId: value })}
        />
        <TextField
          id="drift-group"
          label="Group ID"
          value={form.groupId}
          onChange={(value) => setForm({ ...form, groupId: value })}
        />
        <div class="field">
          <label for="drift-status">Status</label>
          <select
            id="drift-status"
            value={form.status}
            onChange={(event) =>
              setForm({ ...form, status: (event.target as HTMLSelectElement).value })
            }
          >
            <option value="open">Open</option>
            <option value="closed">Closed</option>
          </select>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          disabled={!operator || running || info === undefined}
          onClick={() => void reconcile()}
        >
          Reconcile now
        </button>
        <button type="button" onClick={() => void exportCsv()} disabled={info === undefined}>
          Download CSV
        </button>
        <button
          type="button"
          disabled={!operator || chosen.size === 0}
          onClick={() => void preview()}
        >
          Preview restore
        </button>
        <button
          type="button"
          disabled={!operator || chosen.size === 0}
          onClick={() => void restore()}
        >
          Restore {chosen.size === 0 ? 'chosen findings' : `${chosen.size} finding(s)`}
        </button>
        <span aria-live="polite" class="muted">
          {exporting}
        </span>
      </div>
      {operator ? null : (
        <p class="muted">Reconciling and restoring need the app role Provisioning.Operator.</p>
      )}
      <ErrorPanel error={actionError} title="That did not work" />
      <ErrorPanel error={job.error} />
      {job.data === undefined ? null : (
        <>
          <JobProgress job={job.data} label={job.data.type} />
          <ReconciliationOutcome result={job.data.result as ReconciliationSummary | undefined} />
        </>
      )}
      {restored === undefined ? null : <RestoresStarted answer={restored} />}
      {previewed === undefined ? null : <RestorePreview preview={previewed} />}
      <ErrorPanel error={report.error} />
      {report.data === undefined ? null : findings.length === 0 ? (
        <p>No finding matches.</p>
      ) : (
        <ScrollTable
          label="Drift findings"
          caption="Drift findings"
          hiddenCaption
          className="drift"
        >
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Restore</span>
              </th>
              <th scope="col">Finding</th>
              <th scope="col">Account</th>
              <th scope="col">Group</th>
              <th scope="col">Detail</th>
              <th scope="col">First seen</th>
              <th scope="col">Last confirmed</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {findings.map((f) => (
              <tr key={f.findingId} data-finding={f.findingId}>
                <td>
                  {restorable(f) && f.restore === undefined ? (
                    <input
                      type="checkbox"
                      aria-label={`Restore ${labelOf(f.type)} of ${f.accountId ?? f.targetId}`}
                      checked={chosen.has(f.findingId)}
                      onChange={(event) => {
                        const next = new Set(chosen);
                        if ((event.target as HTMLInputElement).checked) next.add(f.findingId);
                        else next.delete(f.findingId);
                        setChosen(next);
                      }}
                    />
                  ) : null}
                </td>
                <td class="nowrap">{labelOf(f.type)}</td>
                <td>
                  {f.accountId === undefined ? (
                    <>
                      {f.memberName ?? f.targetId} <span class="muted">({f.targetId})</span>
                    </>
                  ) : (
                    <a href={to.account(f.connector, f.accountId)}>{f.accountId}</a>
                  )}
                </td>
                <td>
                  {f.groupId === undefined ? '' : (f.groupName ?? f.groupId)}
                  {f.groupId === undefined ? null : <span class="muted"> ({f.groupId})</span>}
                </td>
                <td>
                  {f.expectedEnabled === undefined
                    ? ''
                    : `set ${stateWord(f.expectedEnabled)}, now ${stateWord(f.observedEnabled)}`}
                  {f.restore === undefined ? null : (
                    <>
                      {' '}
                      restore: <a href={to.request(f.restore.requestId)}>{f.restore.requestId}</a>
                    </>
                  )}
                </td>
                <td class="nowrap">
                  <time dateTime={f.firstSeen}>{formatTime(f.firstSeen)}</time>
                </td>
                <td class="nowrap">
                  <time dateTime={f.lastConfirmed}>{formatTime(f.lastConfirmed)}</time>
                </td>
                <td>{f.status === 'open' ? 'open' : `closed: ${f.closedBecause ?? ''}`}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pager
        page={page}
        next={report.data?.continuationToken}
        link={(token) => to.drift({ ...filters, page: token })}
      />
    </>
  );
}
