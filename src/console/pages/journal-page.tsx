import { useState } from 'preact/hooks';
import { useApp } from '../app-context';
import type { JournalPage } from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import { ErrorPanel } from '../components/error-panel';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { Pager } from '../components/pager';
import { RequestedBy } from '../components/requested-by';
import { formatTime, isoToLocalInput, localInputToIso } from '../format';
import { csvDownloaded, downloadText } from '../download';
import { navigate } from '../navigation';
import { to } from '../routes';
import { ScrollTable } from '../components/scroll-table';
import { useResource } from '../use-resource';

const PAGE = 50;

/** The change journal: filtered by connector, account and time, paged, and as CSV. */
export function JournalPage({ query }: { query: URLSearchParams }) {
  const { api, connectors } = useApp();
  const filters = {
    connector: query.get('connector') ?? '',
    accountId: query.get('accountId') ?? '',
    correlationId: query.get('correlationId') ?? '',
    requestedBy: query.get('requestedBy') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
  const page = query.get('page') ?? undefined;
  const [form, setForm] = useState({
    ...filters,
    from: isoToLocalInput(filters.from),
    to: isoToLocalInput(filters.to),
  });
  const [exporting, setExporting] = useState<string | undefined>(undefined);
  const [exportError, setExportError] = useState<Error | undefined>(undefined);
  const journal = useResource(
    () => api.get<JournalPage>('journal', { ...filters, limit: PAGE, continuationToken: page }),
    [query.toString()],
  );

  const exportCsv = async () => {
    setExportError(undefined);
    setExporting('Making the CSV…');
    try {
      const csv = await api.getCsv('journal', filters);
      downloadText(
        `journal-${filters.connector || 'all'}-${new Date().toISOString().slice(0, 10)}.csv`,
        csv.text,
        'text/csv',
      );
      setExporting(csvDownloaded(csv, 'entries'));
    } catch (error) {
      setExporting(undefined);
      setExportError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const entries = journal.data?.entries ?? [];
  return (
    <>
      <PageHeading title="Journal" />
      <p class="muted">Effective changes only, ordered by connector, then time.</p>
      <form
        class="filters"
        aria-label="Filter the journal"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(
            to.journal({
              connector: form.connector,
              accountId: form.accountId,
              correlationId: form.correlationId,
              requestedBy: form.requestedBy,
              from: localInputToIso(form.from),
              to: localInputToIso(form.to),
            }),
          );
        }}
      >
        <ConnectorSelect
          id="journal-connector"
          connectors={connectors}
          value={form.connector}
          anyLabel="All connectors"
          onChange={(connector) => setForm({ ...form, connector })}
        />
        <TextField
          id="journal-account"
          label="Account ID"
          value={form.accountId}
          onChange={(value) => setForm({ ...form, accountId: value })}
        />
        <TextField
          id="journal-correlation"
          label="Correlation ID"
          value={form.correlationId}
          onChange={(value) => setForm({ ...form, correlationId: value })}
        />
        <TextField
          id="journal-requested-by"
          label="Requested by"
          value={form.requestedBy}
          onChange={(value) => setForm({ ...form, requestedBy: value })}
        />
        <TextField
          id="journal-from"
          label="From"
          value={form.from}
          onChange={(value) => setForm({ ...form, from: value })}
          type="datetime-local"
        />
        <TextField
          id="journal-to"
          label="To"
          value={form.to}
          onChange={(value) => setForm({ ...form, to: value })}
          type="datetime-local"
        />
        <button type="submit">Apply filters</button>
      </form>
      <div class="toolbar">
        <button type="button" onClick={() => void exportCsv()}>
          Download CSV
        </button>
        <span aria-live="polite" class="muted">
          {exporting}
        </span>
      </div>
      <ErrorPanel error={exportError} title="The CSV could not be made" />
      <ErrorPanel error={journal.error} />
      {journal.data === undefined ? null : entries.length === 0 ? (
        <p>No entry matches.</p>
      ) : (
        <ScrollTable
          label="Journal entries"
          caption="Journal entries"
          hiddenCaption
          className="journal"
        >
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Connector</th>
              <th scope="col">Account</th>
              <th scope="col">Change</th>
              <th scope="col">Group</th>
              <th scope="col">Request</th>
              <th scope="col">Requested by</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.key}>
                <td class="nowrap">
                  <time dateTime={entry.at}>{formatTime(entry.at)}</time>
                </td>
                <td>{entry.connector}</td>
                <td>
                  <a href={to.account(entry.connector, entry.accountId)}>{entry.accountId}</a>
                </td>
                <td class="nowrap">{entry.change}</td>
                <td>{entry.groupName ?? entry.groupId ?? ''}</td>
                <td>
                  <a href={to.request(entry.requestId)}>
                    {entry.requestId}
                    <span class="muted"> step {entry.step + 1}</span>
                  </a>
                </td>
                <td>
                  <RequestedBy context={entry} />
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pager
        page={page}
        next={journal.data?.continuationToken}
        link={(token) => to.journal({ ...filters, page: token })}
      />
    </>
  );
}
