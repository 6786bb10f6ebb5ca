import type {
  CatalogueChange,
  CatalogueChangePage,
  GroupChangeFeed,
} from '../../domain/catalogue-changes';
import { ProvisioningError } from '../../domain/errors';
import { errorContext, type GraphContext } from './graph-context';
import { deltaRoundPages } from './graph-delta';
import { isRecord, readString, type GraphObject } from './graph-objects';
import { batchReadGroups, groupReadFailure, writabilityOptions } from './graph-groups';
import { GROUP_SELECT, toGroupRef, type WritabilityOptions } from './group-writability';

/** What a group must show for the catalogue rules: its name and every writability property. */
const COMPLETE_GROUP = GROUP_SELECT.split(',').filter((property) => property !== 'membershipRule');

/**
 * The group catalogue's change feed on Graph (`GET /groups/delta`, graph-behaviour.md:
 * Batching and incremental reads): a cursor is a delta link, used verbatim.
 */
export function graphGroupChanges(context: GraphContext): GroupChangeFeed {
  return {
    latestCursor: () => latestDeltaLink(context),
    changesSince: (cursor) => readGroupChanges(context, cursor),
  };
}

/** "Sync from now": `$deltatoken=latest` answers no groups and a delta link at the current state. */
async function latestDeltaLink(context: GraphContext): Promise<string> {
  const result = await context.http.expect(
    {
      method: 'GET',
      path: '/groups/delta',
      query: { $select: GROUP_SELECT, $deltatoken: 'latest' },
    },
    [200],
    deltaErrorContext(context),
  );
  const link = isRecord(result.body) ? result.body['@odata.deltaLink'] : undefined;
  if (typeof link !== 'string' || link === '') {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `connector "${context.settings.name}": ${result.describe} answered without an @odata.deltaLink`,
      { object: context.settings.name },
    );
  }
  return link;
}

/**
 * Every page of changes since the delta link. A removed group (`@removed`) is a removal; a
 * group shown with fewer properties than the catalogue rules need (Graph sends an updated
 * group as its id and the properties that changed) is read again by id, by `$batch`, and is
 * a removal when that read no longer finds it.
 */
async function* readGroupChanges(
  context: GraphContext,
  cursor: string,
): AsyncGenerator<CatalogueChangePage> {
  const options = await writabilityOptions(context);
  const pages = deltaRoundPages(
    context,
    { method: 'GET', path: cursor },
    { collection: 'groups', job: 'import', errors: deltaErrorContext(context) },
  );
  for await (const page of pages) {
    const changes = await toChanges(context, page.value, options);
    yield page.deltaLink === undefined ? { changes } : { changes, cursor: page.deltaLink };
  }
}

async function toChanges(
  context: GraphContext,
  items: GraphObject[],
  options: WritabilityOptions,
): Promise<CatalogueChange[]> {
  const changes: CatalogueChange[] = [];
  const partial: string[] = [];
  for (const item of items) {
    const id = readString(item, 'id');
    if (id === undefined) continue;
    if (item['@removed'] !== undefined) changes.push({ kind: 'removed', groupId: id });
    else if (COMPLETE_GROUP.every((property) => property in item)) {
      changes.push({ kind: 'present', group: toGroupRef(item, options) });
    } else partial.push(id);
  }
  if (partial.length > 0) changes.push(...(await readWhole(context, partial, options)));
  return changes;
}

/** Groups by id with every property the rules need; a group no longer found is a removal. */
async function readWhole(
  context: GraphContext,
  ids: readonly string[],
  options: WritabilityOptions,
): Promise<CatalogueChange[]> {
  const answers = await batchReadGroups(context, ids, deltaErrorContext(context));
  return answers.map(({ id, response }): CatalogueChange => {
    if (response?.status === 404) return { kind: 'removed', groupId: id };
    if (response?.status !== 200 || !isRecord(response.body)) {
      throw groupReadFailure(
        response,
        id,
        errorContext(context, 'readGroups', `group "${id}"`, id),
      );
    }
    return { kind: 'present', group: toGroupRef(response.body, options) };
  });
}

function deltaErrorContext(context: GraphContext) {
  return errorContext(context, 'readGroups', 'the group catalogue changes', context.settings.name);
}
