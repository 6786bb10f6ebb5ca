import type { GraphSandbox } from '../../src/sandbox/graph';

/** The group name every page must show as text, never as markup. */
export const HOSTILE_NAME = '<img src=x onerror=alert(1)>';

/**
 * A user in a 4-level nesting with a cycle: the user is in "Team Alpha", which is in
 * "Department", in "Division", in "Company"; "Company" is nested back in "Department".
 * Its "Effective inherited memberships" are Department, Division and Company, with the
 * paths that grant them, and a cycle notice.
 */
export function seedNestedUser(graph: GraphSandbox, upn: string) {
  const user = graph.addUser({ userPrincipalName: upn, displayName: 'Nina Nested' });
  const [team, department, division, company] = [
    'Team Alpha',
    'Department',
    'Division',
    'Company',
  ].map((displayName) => graph.addGroup({ displayName }));
  graph.addMember(team!.id, user.id);
  graph.addMember(department!.id, team!.id);
  graph.addMember(division!.id, department!.id);
  graph.addMember(company!.id, division!.id);
  graph.addMember(department!.id, company!.id);
  return { user, team: team!, department: department!, division: division!, company: company! };
}

/**
 * A group with 499 groups nested below it, 32 levels deep (the spec's limits): a chain
 * through every level, and the other groups spread over the levels under it. One of them
 * carries {@link HOSTILE_NAME}, and the chain's end is nested back in the root (a cycle).
 */
export function seedLargeStructure(graph: GraphSandbox): { rootId: string; groups: number } {
  const root = graph.addGroup({ displayName: 'All Departments' });
  const chain = [root.id];
  for (let level = 1; level <= 32; level++) {
    const group = graph.addGroup({ displayName: `Level ${level} unit` });
    graph.addMember(chain[level - 1]!, group.id);
    chain.push(group.id);
  }
  let count = chain.length;
  for (let index = 0; count < 500; index++, count++) {
    const parent = chain[index % 31]!;
    const name = index === 7 ? HOSTILE_NAME : `Team ${String(index + 1).padStart(3, '0')}`;
    const group = graph.addGroup({ displayName: name });
    graph.addMember(parent, group.id);
  }
  graph.addMember(chain[32]!, root.id);
  return { rootId: root.id, groups: count };
}
