import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { SEARCH_MATCH_LIMIT } from '../connector';
import type { GroupRef } from '../../domain/group';
import { sendBatch, type BatchRequest, type BatchResponse } from './graph-batch';
import { groupErrorContext, errorContext, noSuchGroupId, type GraphContext } from './graph-context';
import { mapGraphError, type GraphErrorContext } from './graph-error-mapper';
import { isObjectId, isRecord, type GraphObject } from './graph-objects';
import { ROLE_ASSIGNABLE_WRITE_PERMISSION } from './graph-permissions';
import { odataString, segment } from './graph-urls';
import { GROUP_SELECT, toGroupRef, type WritabilityOptions } from './group-writability';

/** A single read or write goes out alone; two or more go as one `$batch` (one round trip, one call). */
export const SINGLE_CALL_LIMIT = 1;

/**
 * Spec: Import group catalogue ("Import Directory Groups"): GET /groups across every page,
 * with the properties that tell whether members can be written; yielded page by page.
 */
export async function* importGroups(context: GraphContext): AsyncGenerator<GroupRef> {
  const options = await writabilityOptions(context);
  const pages = context.http.pages(
    {
      method: 'GET',
      path: '/groups',
      query: { $select: GROUP_SELECT, $top: context.settings.pageSize },
    },
    errorContext(context, 'readGroups', 'the group catalogue', context.settings.name),
  );
  for await (const page of pages) {
    for (const group of page) yield toGroupRef(group, options);
  }
}

/**
 * The group by its id, with its writability; undefined only when Graph itself answers 404
 * with its not-found error body (the proof a catalogue import needs before it marks a role
 * gone). A 404 without it came from a proxy, a gateway or a wrong base URL: it proves
 * nothing, and is TARGET_RESPONSE_INVALID.
 */
export async function readGroup(
  context: GraphContext,
  groupId: string,
): Promise<GroupRef | undefined> {
  if (!isObjectId(groupId)) throw noSuchGroupId(context, groupId);
  const options = await writabilityOptions(context);
  const result = await context.http.expect(
    { method: 'GET', path: `/groups/${segment(groupId)}`, query: { $select: GROUP_SELECT } },
    [200, 404],
    groupErrorContext(context, groupId),
  );
  // The transport lets a 404 through only as Graph's own not-found (GraphHttp.expect).
  if (result.status === 404) return undefined;
  if (!isRecord(result.body) || result.body.id !== groupId) {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `connector "${context.settings.name}": ${result.describe} answered 200 without group ${groupId}`,
      { object: groupId },
    );
  }
  return toGroupRef(result.body, options);
}

/**
 * The group with exactly this display name (Graph compares case-insensitively; an exact
 * match wins). Several groups may share a name in Entra ID: that is a conflict to resolve,
 * not a guess to make.
 */
export async function findGroup(
  context: GraphContext,
  displayName: string,
): Promise<GroupRef | undefined> {
  const groups = await listGroups(
    context,
    `displayName eq ${odataString(displayName)}`,
    `group "${displayName}"`,
  );
  const exact = groups.filter((group) => group.displayName === displayName);
  const candidates = exact.length > 0 ? exact : groups;
  if (candidates.length > 1) {
    throw new ProvisioningError(
      'GRAPH_CONFLICT',
      `connector "${context.settings.name}": ${candidates.length} groups are named "${displayName}" ` +
        `(${candidates.map((group) => group.id).join(', ')}): use the group ID`,
      { object: displayName, details: { ids: candidates.map((group) => group.id) } },
    );
  }
  return candidates[0];
}

/**
 * Group search by display name, every page read (spec: Connector B rule 2: list reads cover
 * all result pages), up to SEARCH_MATCH_LIMIT matches. Graph's basic queries offer
 * `startswith`; a "contains" search needs advanced queries (`$search`, ConsistencyLevel:
 * eventual), which lag and match words, not substrings (graph-behaviour.md).
 */
export async function searchGroups(context: GraphContext, text: string): Promise<GroupRef[]> {
  const subject = `groups starting with "${text}"`;
  const options = await writabilityOptions(context);
  const pages = context.http.pages(
    {
      method: 'GET',
      path: '/groups',
      query: {
        $filter: `startswith(displayName,${odataString(text)})`,
        $select: GROUP_SELECT,
        $top: context.settings.pageSize,
      },
    },
    errorContext(context, 'readGroups', subject, subject),
  );
  const found: GroupRef[] = [];
  for await (const page of pages) {
    found.push(...page.map((group) => toGroupRef(group, options)));
    if (found.length > SEARCH_MATCH_LIMIT) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `connector "${context.settings.name}": more than ${SEARCH_MATCH_LIMIT} ${subject}: narrow the search`,
        { object: text },
      );
    }
  }
  return found;
}

/**
 * The groups a membership plan writes, with their writability properties, by id: single
 * reads for a few, `$batch` for more. A group that does not exist is `GROUP_NOT_FOUND`.
 */
export async function readGroupsById(
  context: GraphContext,
  ids: readonly string[],
): Promise<Map<string, GraphObject>> {
  const malformed = ids.find((id) => !isObjectId(id));
  if (malformed !== undefined) throw noSuchGroupId(context, malformed);
  const found = new Map<string, GraphObject>();
  for (const [id, group] of await probeGroupsById(context, ids)) {
    if (group instanceof ProvisioningError) throw group;
    found.set(id, group);
  }
  return found;
}

/**
 * Each group's own answer to a read by id, in the order asked: the group, or the error of its
 * read (`GROUP_NOT_FOUND` when it does not exist, whatever else when the read could not
 * tell). Throws only when a `$batch` envelope as a whole fails: then no group was answered.
 */
export async function probeGroupsById(
  context: GraphContext,
  ids: readonly string[],
): Promise<Map<string, GraphObject | ProvisioningError>> {
  const answers = new Map<string, GraphObject | ProvisioningError>();
  const valid = ids.filter((id) => isObjectId(id));
  if (valid.length <= SINGLE_CALL_LIMIT) {
    await Promise.all(valid.map(async (id) => answers.set(id, await readOneGroup(context, id))));
  } else {
    const notFound = (id: string) => groupErrorContext(context, id);
    for (const { id, response } of await batchReadGroups(context, valid, notFound('$batch'))) {
      answers.set(
        id,
        response?.status === 200 && isRecord(response.body)
          ? response.body
          : groupReadFailure(response, id, notFound(id)),
      );
    }
  }
  return new Map(
    ids.map((id) => [id, isObjectId(id) ? answers.get(id)! : noSuchGroupId(context, id)]),
  );
}

/**
 * {@link probeGroupsById}, with a `$batch` envelope that fails as a whole answered as every
 * group's own error: each group's read can only tell what it was told.
 */
export async function probeEachGroup(
  context: GraphContext,
  ids: readonly string[],
): Promise<Map<string, GraphObject | ProvisioningError>> {
  if (ids.length === 0) return new Map();
  try {
    return await probeGroupsById(context, ids);
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return new Map(ids.map((id) => [id, error]));
  }
}

async function readOneGroup(
  context: GraphContext,
  id: string,
): Promise<GraphObject | ProvisioningError> {
  try {
    const result = await context.http.expect(
      { method: 'GET', path: `/groups/${segment(id)}`, query: { $select: GROUP_SELECT } },
      [200],
      groupErrorContext(context, id),
    );
    if (isRecord(result.body)) return result.body;
    return new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `connector "${context.settings.name}": ${result.describe} answered 200 without a group`,
      { object: id },
    );
  } catch (error) {
    if (isProvisioningError(error)) return error;
    throw error;
  }
}

/**
 * Each group's answer to `GET /groups/{id}` with the properties the writability rules need,
 * sent in `$batch`es; what an answer other than 200 means is the caller's to say.
 */
export async function batchReadGroups(
  context: GraphContext,
  ids: readonly string[],
  batchError: GraphErrorContext,
): Promise<{ id: string; response: BatchResponse | undefined }[]> {
  const requests: BatchRequest[] = ids.map((id, index) => ({
    id: String(index),
    method: 'GET',
    url: `/groups/${segment(id)}?$select=${GROUP_SELECT}`,
  }));
  const responses = await sendBatch(context.http, requests, batchOptions(context), batchError);
  return ids.map((id, index) => ({ id, response: responses.get(String(index)) }));
}

/** The error of a group's batched read that did not answer 200 (or did not answer). */
export function groupReadFailure(
  response: BatchResponse | undefined,
  id: string,
  context: GraphErrorContext,
): ProvisioningError {
  return mapGraphError(
    response ?? { status: 0, headers: {}, body: undefined, describe: `GET /groups/${id}` },
    context,
  );
}

/** The writability rules' inputs from the token: role-assignable groups need one more permission. */
export async function writabilityOptions(context: GraphContext): Promise<WritabilityOptions> {
  const token = await context.tokens.acquire();
  return { canWriteRoleAssignable: token.roles.includes(ROLE_ASSIGNABLE_WRITE_PERMISSION) };
}

export function batchOptions(context: GraphContext) {
  return {
    sleep: context.sleep,
    now: context.now,
    maxRetries: context.settings.maxRetries,
    maxThrottleWaitMs: context.settings.maxThrottleWaitSeconds * 1000,
  };
}

async function listGroups(
  context: GraphContext,
  filter: string,
  subject: string,
): Promise<GroupRef[]> {
  const options = await writabilityOptions(context);
  const groups = await context.http.list(
    {
      method: 'GET',
      path: '/groups',
      query: { $filter: filter, $select: GROUP_SELECT, $top: context.settings.pageSize },
    },
    errorContext(context, 'readGroups', subject, subject),
  );
  return groups.map((group) => toGroupRef(group, options));
}
