import { useMemo } from 'preact/hooks';
import { useApp } from '../app-context';
import type { GroupStructure } from '../api-types';
import { ErrorPanel } from '../components/error-panel';
import { ExtraFields } from '../components/extra-fields';
import { Notices } from '../components/notices';
import { PageHeading } from '../components/page-heading';
import { StructureTree } from '../components/structure-tree';
import { groupTree } from '../group-tree';
import { to } from '../routes';
import { useResource } from '../use-resource';

/** The nested structure under a group (up to 500 groups and 32 levels), as a tree. */
export function StructurePage({ connector, groupId }: { connector: string; groupId: string }) {
  const { api } = useApp();
  const structure = useResource(
    () =>
      api.get<GroupStructure>(
        `connectors/${encodeURIComponent(connector)}/groups/${encodeURIComponent(groupId)}/structure`,
      ),
    [connector, groupId],
  );
  const data = structure.data;
  const tree = useMemo(() => (data === undefined ? undefined : groupTree(data)), [data]);
  const levels = data === undefined ? 0 : Math.max(0, ...data.groups.map((g) => g.depth));
  return (
    <>
      <PageHeading
        title={data === undefined ? 'Group structure' : `Structure of ${data.root.displayName}`}
      />
      <p class="muted">
        On connector <a href={to.connector(connector)}>{connector}</a> ·{' '}
        <a href={to.groups({ connector })}>find another group</a>
      </p>
      <ErrorPanel error={structure.error} />
      {data === undefined ? (
        structure.loading ? (
          <p>Reading the nested groups on the target…</p>
        ) : null
      ) : (
        <>
          <p>
            {data.groups.length} group(s) over {levels} level(s) below the root
            {data.complete ? '' : '; the result is incomplete (see the notices)'}.
          </p>
          <Notices notices={data.notices} label="Notices of the structure read" />
          {tree === undefined ? null : <StructureTree root={tree} connector={connector} />}
          <ExtraFields
            value={data}
            known={['root', 'groups', 'edges', 'notices', 'complete', 'stats']}
          />
        </>
      )}
    </>
  );
}
