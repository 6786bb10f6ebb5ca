import { useState } from 'preact/hooks';
import { mayOperate, useApp } from '../app-context';
import { ApiError } from '../api-client';
import type {
  CompatibilityReport,
  JobView,
  LastRunSummary,
  Quarantine,
  StatusResult,
} from '../api-types';
import { formatTime } from '../format';
import { CompatibilityChecklist } from '../components/compatibility-checklist';
import { ErrorPanel } from '../components/error-panel';
import { GroupsCutPanel } from '../components/groups-cut-panel';
import { JobProgress } from '../components/job-progress';
import { PageHeading } from '../components/page-heading';
import { QuarantinePanel } from '../components/quarantine-panel';
import { StatusFindings } from '../components/status-findings';
import { to } from '../routes';
import { usePolling, useResource } from '../use-resource';

/** The status check's word on the last compatibility run, when the kind has one. */
function LastRun({ summary }: { summary: LastRunSummary | null | undefined }) {
  if (summary === undefined || summary === null) return null;
  return (
    <p>
      Last compatibility run <time dateTime={summary.at}>{formatTime(summary.at)}</time>:{' '}
      {summary.verdict}. <span class="muted">{summary.summary}</span>
    </p>
  );
}

const failure = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** How often a quarantined connector's state is read again while the page is open. */
const QUARANTINE_POLL_MS = 5000;

/**
 * A connector: its status check (for Graph with the permission report and, on request, the
 * probe reads that prove the read permissions), and the SCIM compatibility run as a
 * checklist of the six points with their evidence.
 */
export function ConnectorPage({ connector }: { connector: string }) {
  const { api, caller, connectors } = useApp();
  const info = connectors.find((c) => c.name === connector);
  const path = `connectors/${encodeURIComponent(connector)}`;
  const [probe, setProbe] = useState(false);
  const [checking, setChecking] = useState(false);
  const [status, setStatus] = useState<StatusResult | undefined>(undefined);
  const [statusError, setStatusError] = useState<Error | undefined>(undefined);
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const [runError, setRunError] = useState<Error | undefined>(undefined);
  const [releasing, setReleasing] = useState(false);
  const [releaseError, setReleaseError] = useState<Error | undefined>(undefined);
  // The quarantine now, not as the console's start found it: read again while it lasts.
  const quarantine = useResource(() => api.get<Quarantine>(`${path}/quarantine`), [connector]);
  usePolling(quarantine.reload, QUARANTINE_POLL_MS, quarantine.data?.state === 'quarantined');
  const job = useResource(
    () => (jobId === undefined ? Promise.resolve(undefined) : api.get<JobView>(`jobs/${jobId}`)),
    [jobId],
  );
  usePolling(job.reload, 1000, job.data?.status === 'running');
  // The last run kept for the connector: shown until a new one ends. None yet: a 404.
  const last = useResource(async () => {
    if (info?.features.compatibilityRun !== true) return undefined;
    try {
      return await api.get<CompatibilityReport>(`${path}/compatibility-run`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }, [connector]);
  const shown =
    (job.data?.result as CompatibilityReport | undefined) ??
    (job.data === undefined ? last.data : undefined);

  const check = async () => {
    setChecking(true);
    setStatusError(undefined);
    try {
      setStatus(await api.post<StatusResult>(`${path}/status${probe ? '?probe=true' : ''}`));
    } catch (error) {
      setStatusError(failure(error));
    } finally {
      setChecking(false);
    }
  };
  const release = async () => {
    setReleasing(true);
    setReleaseError(undefined);
    try {
      await api.post<{ released: boolean; quarantine: Quarantine }>(`${path}/release`);
      quarantine.reload();
    } catch (error) {
      setReleaseError(failure(error));
    } finally {
      setReleasing(false);
    }
  };
  const run = async () => {
    setRunError(undefined);
    try {
      setJobId((await api.post<{ jobId: string }>(`${path}/compatibility-run`)).jobId);
    } catch (error) {
      setRunError(failure(error));
    }
  };

  if (info === undefined) {
    return (
      <>
        <PageHeading title={`Connector ${connector}`} />
        <p>
          No connector “{connector}” is configured. <a href={to.connectors()}>All connectors</a>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading title={`Connector ${connector}`} />
      <p class="muted">
        kind {info.kind} · <a href={to.roles(connector)}>roles</a> ·{' '}
        <a href={to.requests({ connector })}>requests</a>
      </p>
      <section aria-labelledby="quarantine-heading">
        <h2 id="quarantine-heading">Quarantine</h2>
        <ErrorPanel error={quarantine.error} title="The quarantine could not be read" />
        {quarantine.data === undefined ? null : <QuarantinePanel quarantine={quarantine.data} />}
        {quarantine.data?.state === 'quarantined' ? (
          <>
            <button
              type="button"
              class="primary"
              disabled={!mayOperate(caller) || releasing}
              onClick={() => void release()}
            >
              {releasing ? 'Releasing…' : 'Release now'}
            </button>{' '}
            <span class="muted">
              {mayOperate(caller)
                ? 'Held requests go on at their next look (within a minute); if the target still fails, the connector is quarantined again.'
                : 'Releasing needs the app role Provisioning.Operator.'}
            </span>
          </>
        ) : null}
        <ErrorPanel error={releaseError} title="The connector was not released" />
      </section>
      <section aria-labelledby="status-heading">
        <h2 id="status-heading">Status and permissions</h2>
        <div class="field checkbox">
          <input
            id="status-probe"
            type="checkbox"
            checked={probe}
            onChange={(event) => setProbe((event.target as HTMLInputElement).checked)}
          />
          <label for="status-probe">
            Also prove read permissions with probe reads (where the target allows it)
          </label>
        </div>
        <button type="button" class="primary" disabled={checking} onClick={() => void check()}>
          {checking ? 'Checking…' : 'Check status'}
        </button>
        <ErrorPanel error={statusError} title="The status check failed" />
        {status === undefined ? null : <StatusFindings result={status} />}
        <LastRun summary={status?.lastCompatibilityRun as LastRunSummary | null | undefined} />
      </section>
      {info.features.compatibilityRun ? <GroupsCutPanel connector={connector} /> : null}
      {info.features.compatibilityRun ? (
        <section aria-labelledby="compat-heading">
          <h2 id="compat-heading">Compatibility run</h2>
          <p class="muted">
            Creates a test account, grants and revokes a group, sets a password, locks and deletes
            the account, and judges the six compatibility points on what the server answered. It
            cleans up after itself.
          </p>
          <button
            type="button"
            class="primary"
            disabled={!mayOperate(caller) || job.data?.status === 'running'}
            onClick={() => void run()}
          >
            Run the compatibility test
          </button>
          {mayOperate(caller) ? null : (
            <p class="muted">Running it needs the app role Provisioning.Operator.</p>
          )}
          <ErrorPanel error={runError} title="The run did not start" />
          <ErrorPanel error={job.error} />
          <ErrorPanel error={last.error} title="The last run could not be read" />
          {job.data === undefined ? null : <JobProgress job={job.data} label="Compatibility run" />}
          {shown === undefined ? (
            last.loading || job.data !== undefined ? null : (
              <p>No compatibility run is kept for this connector yet.</p>
            )
          ) : (
            <CompatibilityChecklist report={shown} />
          )}
        </section>
      ) : null}
    </>
  );
}
