import type { SandboxConnectors } from '../../src/runtime/sandbox-connectors';
import { graphTestClient } from '../integration/sandbox/graph-test-client';

/** The drift benchmark's shape: managed groups of `members` members among `accounts` accounts. */
export interface DriftShape {
  groups: number;
  members: number;
  accounts: number;
}

/** What the service must be told it linked and assigned, per connector. */
export interface SeededTarget {
  users: { accountId: string; targetId: string }[];
  groups: string[];
}

/** Member `k` of group `g`: every account is in two or three groups. */
export function memberOf(shape: DriftShape, g: number, k: number): number {
  return (g * shape.members + k) % shape.accounts;
}

/**
 * Seeds both sandboxes with the shape (in the dependencies' process, without HTTP): SCIM
 * names members by userName, as its sandbox connector's `memberValue: accountId` says.
 */
export function seedDriftTargets(
  sandboxes: SandboxConnectors,
  shape: DriftShape,
): { scim: SeededTarget; graph: SeededTarget } {
  const members = (g: number) =>
    Array.from({ length: shape.members }, (_, k) => memberOf(shape, g, k));
  const scimUsers = sandboxes.scim.seedUsers(
    Array.from({ length: shape.accounts }, (_, i) => ({
      userName: `drift.user${i}`,
      active: true,
    })),
  );
  const scimGroups = sandboxes.scim.seedGroups(
    Array.from({ length: shape.groups }, (_, g) => ({
      displayName: `Drift group ${g}`,
      members: members(g).map((i) => scimUsers[i]!.userName),
    })),
  );
  const { graph } = sandboxes;
  const graphUsers = Array.from({ length: shape.accounts }, (_, i) => {
    const upn = `drift.user${i}@contoso.example`;
    return { accountId: upn, targetId: graph.addUser({ userPrincipalName: upn }).id };
  });
  const graphGroups = Array.from({ length: shape.groups }, (_, g) => {
    const { id } = graph.addGroup({ displayName: `Drift group ${g}` });
    for (const i of members(g)) graph.addMember(id, graphUsers[i]!.targetId);
    return id;
  });
  return {
    scim: {
      users: scimUsers.map((u) => ({ accountId: u.userName, targetId: u.id })),
      groups: scimGroups.map((g) => g.id),
    },
    graph: { users: graphUsers, groups: graphGroups },
  };
}

/**
 * Ten changes by hand on the Graph sandbox, through its API as the admin center makes them
 * (so that its delta shows them): five members added, three removed, two accounts locked.
 */
export async function makeGraphOutsideChanges(
  sandboxes: SandboxConnectors,
  shape: DriftShape,
  seeded: SeededTarget,
): Promise<void> {
  const portal = await graphTestClient(sandboxes.graph, sandboxes.handChanges.graphPortal);
  const user = (i: number) => seeded.users[i]!.targetId;
  try {
    for (let g = 0; g < 5; g++) {
      const outsider = memberOf(shape, g + Math.floor(shape.groups / 2), 0);
      await portal.call(
        'POST',
        `/groups/${seeded.groups[g]!}/members/$ref`,
        portal.ref(user(outsider)),
      );
    }
    for (let g = 5; g < 8; g++) {
      await portal.call(
        'DELETE',
        `/groups/${seeded.groups[g]!}/members/${user(memberOf(shape, g, 0))}/$ref`,
      );
    }
    for (const i of [8, 9]) {
      await portal.call('PATCH', `/users/${user(i * 7)}`, { accountEnabled: false });
    }
  } finally {
    await portal.close();
  }
}
