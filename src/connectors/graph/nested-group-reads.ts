import type { TargetAccount } from '../../domain/account';
import {
  inheritedMemberships,
  NESTED_GROUP_LIMITS,
  NestedGroupWalk,
  type NestedGroupLimits,
  type GroupStructure,
  type InheritedMembershipsResult,
  type NestedReadStats,
} from '../../domain/nested-groups';
import { groupErrorContext, noSuchGroupId, type GraphContext } from './graph-context';
import { isGroupObject, isObjectId, isRecord, toGroupLink } from './graph-objects';
import { readDirectGroups } from './graph-memberships';
import { segment } from './graph-urls';
import { neighbourPath, readLevel } from './group-level-reader';

export type { GroupStructure, InheritedMembershipsResult, NestedReadStats };

/**
 * The nested structure below a group, level by level, up to 500 groups and 32 levels:
 * the root and its members are read together, then each level's groups at once. Cycles and
 * branches that cannot be read are notices; only an unreadable root fails.
 */
export async function readGroupStructure(
  context: GraphContext,
  groupId: string,
  limits: NestedGroupLimits = NESTED_GROUP_LIMITS,
): Promise<GroupStructure> {
  if (!isObjectId(groupId)) throw noSuchGroupId(context, groupId);
  const errors = groupErrorContext(context, groupId);
  const callsBefore = context.http.calls;
  const [rootAnswer, rootMembers] = await Promise.all([
    context.http.expect(
      { method: 'GET', path: `/groups/${segment(groupId)}`, query: { $select: 'id,displayName' } },
      [200],
      errors,
    ),
    context.http.list(
      {
        method: 'GET',
        path: neighbourPath(groupId, 'members'),
        query: { $select: 'id,displayName', $top: context.settings.pageSize },
      },
      errors,
    ),
  ]);
  const root = isRecord(rootAnswer.body)
    ? toGroupLink(rootAnswer.body)
    : { id: groupId, displayName: groupId };
  const walk = new NestedGroupWalk([root], 'members', limits);
  walk.record(root.id, rootMembers.filter(isGroupObject).map(toGroupLink), rootMembers.length);
  walk.advance();
  // The root's own read runs beside the first page of its members: one round trip per page.
  const roundTrips = context.http.calls - callsBefore - 1;
  const stats = await walkLevels(context, walk, 'members', callsBefore, roundTrips);
  const result = walk.result();
  return {
    root,
    groups: result.groups,
    edges: result.edges,
    notices: result.notices,
    complete: result.complete,
    stats,
  };
}

/**
 * An account's effective inherited memberships: its direct groups (all pages, groups only),
 * then their parent groups level by level, each inherited group with the path that grants
 * it. Inherited memberships are only shown, never written (spec: Nested groups).
 */
export async function readInheritedMemberships(
  context: GraphContext,
  account: TargetAccount,
  limits: NestedGroupLimits = NESTED_GROUP_LIMITS,
): Promise<InheritedMembershipsResult> {
  const callsBefore = context.http.calls;
  const starts = await readDirectGroups(context, account);
  const walk = new NestedGroupWalk(starts, 'parents', limits);
  const stats = await walkLevels(
    context,
    walk,
    'parents',
    callsBefore,
    context.http.calls - callsBefore,
  );
  const result = walk.result();
  return {
    accountId: account.accountId,
    direct: starts,
    inherited: inheritedMemberships(result),
    notices: result.notices,
    complete: result.complete,
    stats,
  };
}

async function walkLevels(
  context: GraphContext,
  walk: NestedGroupWalk,
  relation: 'members' | 'parents',
  callsBefore: number,
  firstRoundTrips: number,
): Promise<NestedReadStats> {
  const totals = { levels: 1, requests: 0, roundTrips: firstRoundTrips };
  while (!walk.done) {
    const frontier = walk.frontier().map((group) => group.id);
    const level = await readLevel(context, frontier, relation);
    for (const id of frontier) {
      const read = level.reads.get(id);
      if (read === undefined || 'unreadable' in read)
        walk.recordUnreadable(id, read?.unreadable ?? 'not read');
      else walk.record(id, read.neighbours, relation === 'members' ? read.objects : undefined);
    }
    walk.advance();
    totals.levels++;
    totals.roundTrips += level.roundTrips;
  }
  totals.requests = context.http.calls - callsBefore;
  return totals;
}
