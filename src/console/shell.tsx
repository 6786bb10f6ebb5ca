import type { ComponentChildren } from 'preact';
import { useApp } from './app-context';
import { useRoute } from './navigation';
import { AccountPage } from './pages/account-page';
import { AccountsPage } from './pages/accounts-page';
import { ConnectorPage } from './pages/connector-page';
import { ConnectorsPage } from './pages/connectors-page';
import { DriftPage } from './pages/drift-page';
import { GroupsPage } from './pages/groups-page';
import { HealthPage } from './pages/health-page';
import { JournalPage } from './pages/journal-page';
import { NewRequestPage } from './pages/new-request-page';
import { NotFoundPage } from './pages/not-found-page';
import { RequestPage } from './pages/request-page';
import { RequestsPage } from './pages/requests-page';
import { RolesPage } from './pages/roles-page';
import { StructurePage } from './pages/structure-page';
import { to, type Route } from './routes';

const NAV: { label: string; href: string; pages: Route['page'][] }[] = [
  { label: 'Requests', href: to.requests(), pages: ['requests', 'request'] },
  { label: 'New request', href: to.newRequest(), pages: ['new-request'] },
  { label: 'Accounts', href: to.accounts(), pages: ['accounts', 'account'] },
  { label: 'Groups', href: to.groups(), pages: ['groups', 'structure'] },
  { label: 'Roles', href: to.roles(), pages: ['roles'] },
  { label: 'Journal', href: to.journal(), pages: ['journal'] },
  { label: 'Drift', href: to.drift(), pages: ['drift'] },
  { label: 'Connectors', href: to.connectors(), pages: ['connectors', 'connector'] },
  { label: 'Health', href: to.health(), pages: ['health'] },
];

function Page({ route }: { route: Route }): ComponentChildren {
  switch (route.page) {
    case 'requests':
      return <RequestsPage query={route.query} />;
    case 'request':
      return <RequestPage requestId={route.requestId} />;
    case 'new-request':
      return <NewRequestPage query={route.query} />;
    case 'accounts':
      return <AccountsPage query={route.query} />;
    case 'account':
      return <AccountPage connector={route.connector} accountId={route.accountId} />;
    case 'groups':
      return <GroupsPage query={route.query} />;
    case 'structure':
      return <StructurePage connector={route.connector} groupId={route.groupId} />;
    case 'roles':
      return (
        <RolesPage
          query={route.query}
          {...(route.connector === undefined ? {} : { connector: route.connector })}
        />
      );
    case 'journal':
      return <JournalPage query={route.query} />;
    case 'drift':
      return <DriftPage query={route.query} />;
    case 'connectors':
      return <ConnectorsPage />;
    case 'connector':
      return <ConnectorPage connector={route.connector} />;
    case 'health':
      return <HealthPage />;
    case 'not-found':
      return <NotFoundPage path={route.path} />;
  }
}

/** The signed-in console: the header with the caller and the pages, the current page below. */
export function Shell({ onSignOut }: { onSignOut: () => void }) {
  const { caller } = useApp();
  const route = useRoute();
  const who =
    caller.kind === 'principal'
      ? `${caller.name ?? 'signed in'} · ${caller.roles.map((role) => role.replace('Provisioning.', '')).join(', ') || 'no role'}`
      : 'API key';
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <a href={to.requests()}>Provisioning console</a>
        </div>
        <nav aria-label="Pages">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a
                  href={item.href}
                  aria-current={item.pages.includes(route.page) ? 'page' : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{who}</span>
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} key={location.pathname + location.search}>
        <Page route={route} />
      </main>
    </>
  );
}
