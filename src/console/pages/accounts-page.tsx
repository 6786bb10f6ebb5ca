import { useState } from 'preact/hooks';
import { useApp } from '../app-context';
import { ConnectorSelect } from '../components/connector-select';
import { PageHeading } from '../components/page-heading';
import { TextField } from '../components/text-field';
import { navigate } from '../navigation';
import { to } from '../routes';

/** Looks an account up by connector and account ID: its page is then the account's URL. */
export function AccountsPage({ query }: { query: URLSearchParams }) {
  const { connectors } = useApp();
  const [connector, setConnector] = useState(query.get('connector') ?? connectors[0]?.name ?? '');
  const [accountId, setAccountId] = useState('');
  return (
    <>
      <PageHeading title="Accounts" />
      <form
        class="filters"
        aria-label="Find an account"
        onSubmit={(event) => {
          event.preventDefault();
          if (accountId.trim() !== '') navigate(to.account(connector, accountId.trim()));
        }}
      >
        <ConnectorSelect
          id="accounts-connector"
          connectors={connectors}
          value={connector}
          onChange={setConnector}
        />
        <TextField
          id="accounts-id"
          label="Account ID"
          value={accountId}
          onChange={setAccountId}
          required
        />
        <button type="submit">Show account</button>
      </form>
    </>
  );
}
