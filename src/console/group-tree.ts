import type { GroupLink, GroupStructure, NestedNotice, StructureGroup } from './api-types';

/** A group of a structure as the tree shows it. */
export interface TreeNode {
  group: StructureGroup;
  /** The groups first reached through this one (the walk's tree). */
  children: TreeNode[];
  /** Groups this one also contains that are shown elsewhere in the tree (or above it: a cycle). */
  alsoContains: GroupLink[];
  /** Notices that name this group: a cycle through it, a branch that could not be read. */
  notices: NestedNotice[];
}

/**
 * The nested structure under a group as a tree: each group under the group through which
 * the walk first reached it, with the other nesting relations and the notices on the groups
 * they concern.
 *
 * @example
 * groupTree(structure)?.children.map((n) => n.group.displayName); // ['Sales EU', 'Sales US']
 */
export function groupTree(structure: GroupStructure): TreeNode | undefined {
  const nodes = new Map<string, TreeNode>();
  for (const group of structure.groups) {
    nodes.set(group.id, { group, children: [], alsoContains: [], notices: [] });
  }
  const parentOf = new Map<string, string>();
  for (const group of structure.groups) {
    const parent = group.path.at(-2);
    if (group.depth > 0 && parent !== undefined && nodes.has(parent.id)) {
      parentOf.set(group.id, parent.id);
      nodes.get(parent.id)?.children.push(nodes.get(group.id) as TreeNode);
    }
  }
  for (const edge of structure.edges) {
    if (parentOf.get(edge.to) === edge.from) continue;
    const from = nodes.get(edge.from);
    const to = nodes.get(edge.to);
    if (from !== undefined && to !== undefined) {
      from.alsoContains.push({ id: to.group.id, displayName: to.group.displayName });
    }
  }
  for (const notice of structure.notices) {
    for (const id of new Set(notice.groupIds)) nodes.get(id)?.notices.push(notice);
  }
  return nodes.get(structure.root.id) ?? (structure.groups[0] && nodes.get(structure.groups[0].id));
}

/** How many groups are below a node, at any depth. */
export function descendants(node: TreeNode): number {
  let count = 0;
  const stack = [...node.children];
  while (stack.length > 0) {
    const next = stack.pop() as TreeNode;
    count += 1;
    stack.push(...next.children);
  }
  return count;
}
