import type {
  CatalogueChange,
  CatalogueChangePage,
  GroupChangeFeed,
} from '../../domain/catalogue-changes';
import { ProvisioningError } from '../../domain/errors';
import { errorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError } from './graph-error-mapper';
import { isRecord, readString, type GraphObject } from './graph-objects';
import { batchReadGroups, groupReadFailure, writabilityOptions } from './graph-groups';
import { GROUP_SELECT, toGroupRef, type WritabilityOptions } from './group-writability';

/** What a group must show for the catalogue rules: its name and every writability property. */
const COMPLETE_GROUP = GROUP_SELECT.split(',').filter((property) => property !== 'membershipRule');

/**
 * Graph's answers for a delta link it no longer knows: 400 `syncStateNotFound` for identity
 * resources after seven days (graph-behaviour.md), 410 Gone or `resyncRequired` elsewhere.
 */
const EXPIRED_CODES = new Set(['syncStateNotFound', 'resyncRequired']);

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
 * Every page of changes since the delta link: `@odata.nextLink` followed until the page
 * with the next `@odata.deltaLink`. A removed group (`@removed`) is a removal; a group
 * shown with fewer properties than the catalogue rules need (Graph sends an updated group
 * as its id and the properties that changed) is read again by id, by `$batch`, and is a
 * removal when that read no longer finds it.
 */
async function* readGroupChanges(
  context: GraphContext,
  cursor: string,
): AsyncGenerator<CatalogueChangePage> {
  if (!cursor.startsWith(`${context.http.root}/groups/delta?`)) {
    // Settings changed since the link was saved: it must never carry the token elsewhere.
    throw expired(context, `the saved delta link is not one of ${context.http.root}`);
  }
  const options = await writabilityOptions(context);
  let next = cursor;
  for (;;) {
    const result = await context.http.send({ method: 'GET', path: next });
    const graphCode = readGraphError(result.body).code;
    if (result.status === 410 || (graphCode !== undefined && EXPIRED_CODES.has(graphCode))) {
      throw expired(context, `Graph answered ${result.status} ${graphCode ?? ''}`.trim());
    }
    if (result.status !== 200) throw mapGraphError(result, deltaErrorContext(context));
    const page = readDeltaPage(result.body, result.describe, context);
    const changes = await toChanges(context, page.value, options);
    if (page.deltaLink !== undefined) {
      yield { changes, cursor: page.deltaLink };
      return;
    }
    yield { changes };
    next = page.nextLink;
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

type DeltaPage =
  | { value: GraphObject[]; deltaLink: string; nextLink?: undefined }
  | { value: GraphObject[]; deltaLink?: undefined; nextLink: string };

/** A delta page carries exactly one of `@odata.nextLink` and `@odata.deltaLink`. */
function readDeltaPage(body: unknown, describe: string, context: GraphContext): DeltaPage {
  const value =
    isRecord(body) && Array.isArray(body.value) ? body.value.filter(isRecord) : undefined;
  const deltaLink = isRecord(body) ? body['@odata.deltaLink'] : undefined;
  const nextLink = isRecord(body) ? body['@odata.nextLink'] : undefined;
  if (value !== undefined && typeof deltaLink === 'string' && deltaLink !== '') {
    return { value, deltaLink };
  }
  if (value !== undefined && typeof nextLink === 'string' && nextLink !== '') {
    return { value, nextLink };
  }
  throw new ProvisioningError(
    'TARGET_RESPONSE_INVALID',
    `connector "${context.settings.name}": ${describe} answered a delta page without "value" and a next or delta link`,
    { object: context.settings.name },
  );
}

function expired(context: GraphContext, why: string): ProvisioningError {
  return new ProvisioningError(
    'CATALOGUE_CURSOR_EXPIRED',
    `connector "${context.settings.name}": the delta link of the last import is no longer valid (${why})`,
    { object: context.settings.name },
  );
}

function deltaErrorContext(context: GraphContext) {
  return errorContext(context, 'readGroups', 'the group catalogue changes', context.settings.name);
}
