import { isProvisioningError, type ErrorCode } from '../../domain/errors';
import type { GroupLink, NestedGroupRelation } from '../../domain/nested-groups';
import { chunk } from '../../domain/chunk';
import { BATCH_LIMIT, sendBatch, type BatchRequest } from './graph-batch';
import { groupErrorContext, type GraphContext } from './graph-context';
import { mapGraphError } from './graph-error-mapper';
import { readPage } from './graph-http';
import { isGroupObject, toGroupLink, type GraphObject } from './graph-objects';
import { segment } from './graph-urls';
import { PagingGuard } from './paging-guard';
import { batchOptions, SINGLE_CALL_LIMIT } from './graph-groups';

/** A group's read: its neighbours that are groups, and how many objects of every kind it read. */
export type GroupRead = { neighbours: GroupLink[]; objects: number } | { unreadable: string };

export interface LevelReadResult {
  reads: Map<string, GroupRead>;
  /** Sequential round trips this level took: envelope waves plus the longest nextLink chain. */
  roundTrips: number;
}

/** Failures of one branch that make it a notice (spec: incomplete reads are notices). */
const BRANCH_FAILURES = new Set<ErrorCode>([
  'GRAPH_PERMISSION_MISSING',
  'TARGET_FORBIDDEN',
  'GROUP_NOT_FOUND',
  'TARGET_THROTTLED',
  'TARGET_UNAVAILABLE',
  'GRAPH_REQUEST_REJECTED',
]);

/** `members` reads nested groups (down); `parents` reads memberOf (up). */
export function neighbourPath(groupId: string, relation: NestedGroupRelation): string {
  return `/groups/${segment(groupId)}/${relation === 'members' ? 'members' : 'memberOf'}`;
}

/**
 * Reads one level of a nested-group walk (spec: Nested groups: round trips grow with depth,
 * not with the number of groups): the first page of every group at once (single calls for a
 * few, `$batch` envelopes of 20 sent in parallel for more), then each group's further pages
 * by its nextLink, verbatim. Groups only: members that are users, devices or contacts and
 * parents that are administrative units are dropped. A branch that fails is unreadable.
 */
export async function readLevel(
  context: GraphContext,
  groupIds: readonly string[],
  relation: NestedGroupRelation,
): Promise<LevelReadResult> {
  const query = `?$select=id,displayName&$top=${context.settings.pageSize}`;
  const errors = (id: string) => groupErrorContext(context, id);
  const firstPages = new Map<string, GraphReadPage | { unreadable: string }>();
  let roundTrips = 0;
  if (groupIds.length <= SINGLE_CALL_LIMIT) {
    roundTrips += groupIds.length === 0 ? 0 : 1;
    await Promise.all(
      groupIds.map(async (id) => {
        firstPages.set(
          id,
          await branch(() => firstPage(context, `${neighbourPath(id, relation)}${query}`, id)),
        );
      }),
    );
  } else {
    const batch: BatchRequest[] = groupIds.map((id, index) => ({
      id: String(index),
      method: 'GET',
      url: `${neighbourPath(id, relation)}${query}`,
    }));
    const envelopes = chunk(batch, BATCH_LIMIT).length;
    roundTrips += Math.ceil(envelopes / context.settings.concurrency);
    const answers = await branch(() =>
      sendBatch(context.http, batch, batchOptions(context), errors('$batch')),
    );
    groupIds.forEach((id, index) => {
      if ('unreadable' in answers) {
        firstPages.set(id, answers);
        return;
      }
      const answer = answers.get(String(index))!;
      if (answer.status === 200) {
        firstPages.set(id, readPage(answer.body, answer.describe));
      } else {
        firstPages.set(id, {
          unreadable: describeFailure(mapGraphError(answer, errors(id)).code, answer.status),
        });
      }
    });
  }
  const reads = new Map<string, GroupRead>();
  let longestChain = 0;
  await Promise.all(
    groupIds.map(async (id) => {
      const first = firstPages.get(id)!;
      if ('unreadable' in first) {
        reads.set(id, first);
        return;
      }
      const objects = [...first.value];
      const guard = new PagingGuard(errors(id));
      let last = first.value.length;
      let next = first.nextLink;
      let chain = 0;
      while (next !== undefined) {
        const link = next;
        guard.follow(last, link);
        const page = await branch(() => firstPage(context, link, id));
        chain++;
        if ('unreadable' in page) {
          reads.set(id, page);
          longestChain = Math.max(longestChain, chain);
          return;
        }
        objects.push(...page.value);
        last = page.value.length;
        next = page.nextLink;
      }
      longestChain = Math.max(longestChain, chain);
      reads.set(id, {
        neighbours: objects.filter(isGroupObject).map(toGroupLink),
        objects: objects.length,
      });
    }),
  );
  return { reads, roundTrips: roundTrips + longestChain };
}

interface GraphReadPage {
  value: GraphObject[];
  nextLink?: string;
}

async function firstPage(context: GraphContext, path: string, id: string): Promise<GraphReadPage> {
  const result = await context.http.expect(
    { method: 'GET', path },
    [200],
    groupErrorContext(context, id),
  );
  return readPage(result.body, result.describe);
}

async function branch<T>(read: () => Promise<T>): Promise<T | { unreadable: string }> {
  try {
    return await read();
  } catch (error) {
    if (isProvisioningError(error) && BRANCH_FAILURES.has(error.code)) {
      return { unreadable: describeFailure(error.code, error.status) };
    }
    throw error;
  }
}

function describeFailure(code: ErrorCode, status: number | undefined): string {
  return status === undefined ? code : `${code}, HTTP ${status}`;
}
