import { useEffect, useState } from 'preact/hooks';
import { mayOperate, useApp } from '../app-context';
import type { CatalogueRole, JobView } from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import { ErrorPanel } from '../components/error-panel';
import { JobProgress } from '../components/job-progress';
import { Notices } from '../components/notices';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format';
import { navigate } from '../navigation';
import { to } from '../routes';
import { ScrollTable } from '../components/scroll-table';
import { usePolling, useResource } from '../use-resource';

interface ImportResult {
  mode?: 'full' | 'incremental';
  notices?: string[];
  groups?: number;
  added?: number;
  renamed?: number;
  renameSkipped?: number;
  unchanged?: number;
  returned?: number;
  markedGone?: number;
}

function ImportSummary({ result }: { result: ImportResult | undefined }) {
  if (result === undefined) return null;
  const parts = (
    [
      ['groups read', result.groups],
      ['added', result.added],
      ['renamed', result.renamed],
      ['renames kept out (no overwrite)', result.renameSkipped],
      ['back again', result.returned],
      ['marked gone', result.markedGone],
    ] as const
  ).filter(([, value]) => typeof value === 'number');
  const mode =
    result.mode === 'incremental'
      ? 'Incremental: only the changes since the last import. '
      : result.mode === 'full'
        ? 'The whole catalogue was read. '
        : '';
  return (
    <>
      <p>
        {mode}
        {parts.map(([label, value]) => `${value} ${label}`).join(', ')}.
      </p>
      <Notices notices={result.notices} label="Notices of the import" />
    </>
  );
}

/**
 * The imported role catalogue of a connector, with the writable flag and its reason and the
 * roles gone from the target marked; "Import" runs the catalogue import as a job and shows
 * it until it ends.
 */
export function RolesPage({
  connector: given,
  query,
}: {
  connector?: string;
  query: URLSearchParams;
}) {
  const { api, caller, connectors } = useApp();
  const connector = given ?? connectors[0]?.name ?? '';
  const info = connectors.find((c) => c.name === connector);
  const includeGone = query.get('includeGone') === 'true';
  const search = query.get('search') ?? '';
  const [form, setForm] = useState({ connector, search, includeGone });
  const [overwrite, setOverwrite] = useState(false);
  const [incremental, setIncremental] = useState(false);
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const [startError, setStartError] = useState<Error | undefined>(undefined);
  const [knownBefore, setKnownBefore] = useState<Set<string> | undefined>(undefined);
  const roles = useResource(
    () =>
      api.get<{ roles: CatalogueRole[] }>(`connectors/${encodeURIComponent(connector)}/roles`, {
        search,
        includeGone: includeGone ? 'true' : undefined,
      }),
    [connector, search, includeGone],
  );
  const job = useResource(
    () => (jobId === undefined ? Promise.resolve(undefined) : api.get<JobView>(`jobs/${jobId}`)),
    [jobId],
  );
  const running = job.data?.status === 'running' || (jobId !== undefined && job.data === undefined);
  usePolling(
    () => {
      job.reload();
    },
    500,
    running,
  );
  const finished =
    job.data !== undefined && job.data.status !== 'running' ? job.data.jobId : undefined;
  // The catalogue as the finished import left it.
  useEffect(() => {
    if (finished !== undefined) roles.reload();
  }, [finished]);
  const start = async () => {
    setStartError(undefined);
    try {
      // What the catalogue held before: the roles the import adds are marked new.
      const before = await api.get<{ roles: CatalogueRole[] }>(
        `connectors/${encodeURIComponent(connector)}/roles`,
        { includeGone: 'true' },
      );
      setKnownBefore(new Set(before.roles.map((role) => role.groupId)));
      const started = await api.post<{ jobId: string }>(
        `connectors/${encodeURIComponent(connector)}/imports`,
        { overwriteExisting: overwrite, incremental },
      );
      setJobId(started.jobId);
    } catch (error) {
      setStartError(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const list = roles.data?.roles ?? [];
  return (
    <>
      <PageHeading title={`Roles of ${connector}`} />
      <form
        class="filters"
        aria-label="Filter roles"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(
            to.roles(form.connector, {
              search: form.search,
              includeGone: form.includeGone ? 'true' : undefined,
            }),
          );
        }}
      >
        <ConnectorSelect
          id="roles-connector"
          connectors={connectors}
          value={form.connector}
          onChange={(name) => setForm({ ...form, connector: name })}
        />
        <TextField
          id="roles-search"
          label="Role name contains"
          value={form.search}
          onChange={(value) => setForm({ ...form, search: value })}
          type="search"
        />
        <div class="field checkbox">
          <input
            id="roles-gone"
            type="checkbox"
            checked={form.includeGone}
            onChange={(event) =>
              setForm({ ...form, includeGone: (event.target as HTMLInputElement).checked })
            }
          />
          <label for="roles-gone">Show roles gone from the target</label>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <section class="import" aria-labelledby="import-heading">
        <h2 id="import-heading">{info?.catalogueJobType ?? 'Import'}</h2>
        <div class="field checkbox">
          <input
            id="roles-overwrite"
            type="checkbox"
            checked={overwrite}
            onChange={(event) => setOverwrite((event.target as HTMLInputElement).checked)}
          />
          <label for="roles-overwrite">Overwrite existing roles</label>
        </div>
        <div class="field checkbox">
          <input
            id="roles-incremental"
            type="checkbox"
            checked={incremental}
            onChange={(event) => setIncremental((event.target as HTMLInputElement).checked)}
          />
          <label for="roles-incremental">
            Only the changes since the last import, where the target can tell them (Graph); else the
            whole catalogue
          </label>
        </div>
        <button
          type="button"
          class="primary"
          disabled={!mayOperate(caller) || running}
          onClick={() => void start()}
        >
          Import
        </button>
        {mayOperate(caller) ? null : (
          <p class="muted">Importing needs the app role Provisioning.Operator.</p>
        )}
        <ErrorPanel error={startError} title="The import did not start" />
        <ErrorPanel error={job.error} />
        {job.data === undefined ? null : (
          <>
            <JobProgress job={job.data} label={job.data.type} />
            <ImportSummary result={job.data.result as ImportResult | undefined} />
          </>
        )}
      </section>
      <ErrorPanel error={roles.error} />
      {roles.data === undefined ? null : list.length === 0 ? (
        <p>
          {search === ''
            ? `No role is imported for ${connector} yet: run the import.`
            : 'No role matches.'}
        </p>
      ) : (
        <>
          <p class="muted">{list.length} role(s)</p>
          <ScrollTable
            label="Roles"
            caption={`Roles of ${connector}`}
            hiddenCaption
            className="roles"
          >
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Writable</th>
                <th scope="col">On the target</th>
                <th scope="col">Last import</th>
              </tr>
            </thead>
            <tbody>
              {list.map((role) => (
                <tr key={role.groupId} class={role.status === 'gone' ? 'gone' : ''}>
                  <th scope="row">
                    {role.displayName}
                    {role.targetName !== role.displayName ? (
                      <span class="muted"> (now “{role.targetName}” on the target)</span>
                    ) : null}
                    {finished !== undefined &&
                    knownBefore !== undefined &&
                    !knownBefore.has(role.groupId) ? (
                      <span class="badge badge-new">new</span>
                    ) : null}
                  </th>
                  <td>
                    {role.writable
                      ? 'yes'
                      : `no: ${role.notWritableReason ?? 'members cannot be written'}`}
                  </td>
                  <td>
                    <StatusBadge status={role.status} />
                    {role.goneSince === undefined ? null : (
                      <span class="muted"> since {formatTime(role.goneSince)}</span>
                    )}
                  </td>
                  <td>
                    <time dateTime={role.lastImportedAt}>{formatTime(role.lastImportedAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        </>
      )}
    </>
  );
}
