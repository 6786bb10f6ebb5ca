import { PageHeading } from '../components/page-heading';
import { to } from '../routes';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <>
      <PageHeading title="No such page" />
      <p>
        The console has no page at <code>{path}</code>. <a href={to.requests()}>Requests</a>
      </p>
    </>
  );
}
