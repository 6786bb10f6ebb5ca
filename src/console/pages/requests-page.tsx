import { useState } from 'preact/hooks';
import { useApp } from '../app-context';
import type { RequestList } from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import { ErrorPanel } from '../components/error-panel';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { Pager } from '../components/pager';
import { RequestedBy } from '../components/requested-by';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format';
import { navigate } from '../navigation';
import { to } from '../routes';
import { ScrollTable } from '../components/scroll-table';
import { usePolling, useResource } from '../use-resource';

const STATUSES = ['pending', 'running', 'succeeded', 'failed'];

/** Requests, newest first, filtered by connector, account and status, paged; live while any runs. */
export function RequestsPage({ query }: { query: URLSearchParams }) {
  const { api, connectors } = useApp();
  const filters = {
    connector: query.get('connector') ?? '',
    accountId: query.get('accountId') ?? '',
    status: query.get('status') ?? '',
  };
  const page = query.get('page') ?? undefined;
  const [form, setForm] = useState(filters);
  const list = useResource(
    () =>
      api.get<RequestList>('requests', {
        ...filters,
        limit: 25,
        continuationToken: page,
      }),
    [query.toString()],
  );
  const requests = list.data?.requests ?? [];
  usePolling(
    list.reload,
    3000,
    requests.some((r) => r.status === 'pending' || r.status === 'running'),
  );
  return (
    <>
      <PageHeading title="Requests">
        <a class="button" href={to.newRequest()}>
          New request
        </a>
      </PageHeading>
      <form
        class="filters"
        aria-label="Filter requests"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(to.requests(form));
        }}
      >
        <ConnectorSelect
          id="requests-connector"
          connectors={connectors}
          value={form.connector}
          anyLabel="All connectors"
          onChange={(connector) => setForm({ ...form, connector })}
        />
        <TextField
          id="requests-account"
          label="Account ID"
          value={form.accountId}
          onChange={(value) => setForm({ ...form, accountId: value })}
        />
        <div class="field">
          <label for="requests-status">Status</label>
          <select
            id="requests-status"
            value={form.status}
            onChange={(event) =>
              setForm({ ...form, status: (event.target as HTMLSelectElement).value })
            }
          >
            <option value="">Any status</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <ErrorPanel error={list.error} />
      {list.data === undefined ? (
        list.loading ? (
          <p aria-live="polite">Loading requests…</p>
        ) : null
      ) : requests.length === 0 ? (
        <p>No request matches.</p>
      ) : (
        <ScrollTable
          label="Requests list"
          caption="Requests, newest first"
          hiddenCaption
          className="requests"
        >
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Request</th>
              <th scope="col">Connector</th>
              <th scope="col">Account</th>
              <th scope="col">Actions</th>
              <th scope="col">Requested by</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {requests.map((request) => (
              <tr key={request.requestId}>
                <td class="nowrap">
                  <time dateTime={request.receivedAt}>{formatTime(request.receivedAt)}</time>
                </td>
                <td>
                  <a href={to.request(request.requestId)}>{request.requestId}</a>
                </td>
                <td>{request.connector}</td>
                <td>
                  <a href={to.account(request.connector, request.accountId)}>{request.accountId}</a>
                </td>
                <td>{request.actions.join(', ')}</td>
                <td>
                  <RequestedBy context={request} />
                </td>
                <td>
                  <StatusBadge status={request.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pager
        page={page}
        next={list.data?.continuationToken}
        link={(token) => to.requests({ ...filters, page: token })}
      />
    </>
  );
}
