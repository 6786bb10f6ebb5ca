import { useState } from 'preact/hooks';
import { useApp } from '../app-context';
import type { GroupLink } from '../api-types';
import { ConnectorSelect } from '../components/connector-select';
import { ErrorPanel } from '../components/error-panel';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { navigate } from '../navigation';
import { to } from '../routes';
import { useResource } from '../use-resource';

/** Finds a group by name on a target whose groups nest, to open its structure. */
export function GroupsPage({ query }: { query: URLSearchParams }) {
  const { api, connectors } = useApp();
  const nesting = connectors.filter((c) => c.features.groupStructure);
  const connector = query.get('connector') ?? nesting[0]?.name ?? '';
  const search = query.get('search') ?? '';
  const [form, setForm] = useState({ connector, search });
  const found = useResource(
    () =>
      search === '' || connector === ''
        ? Promise.resolve(undefined)
        : api.get<{ groups: GroupLink[] }>(`connectors/${encodeURIComponent(connector)}/groups`, {
            search,
          }),
    [connector, search],
  );
  return (
    <>
      <PageHeading title="Group structure" />
      {nesting.length === 0 ? (
        <p>No configured connector has nested groups.</p>
      ) : (
        <form
          class="filters"
          aria-label="Find a group"
          onSubmit={(event) => {
            event.preventDefault();
            navigate(to.groups(form));
          }}
        >
          <ConnectorSelect
            id="groups-connector"
            connectors={nesting}
            value={form.connector}
            onChange={(name) => setForm({ ...form, connector: name })}
          />
          <TextField
            id="groups-search"
            label="Group name contains"
            value={form.search}
            onChange={(value) => setForm({ ...form, search: value })}
            required
          />
          <button type="submit">Search the target</button>
        </form>
      )}
      <ErrorPanel error={found.error} />
      {found.data === undefined ? null : found.data.groups.length === 0 ? (
        <p>No group on the target has a name containing “{search}”.</p>
      ) : (
        <ul class="group-list" aria-label="Groups found">
          {found.data.groups.map((group) => (
            <li key={group.id}>
              <a href={to.structure(connector, group.id)}>{group.displayName}</a>{' '}
              <span class="muted">{group.id}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
