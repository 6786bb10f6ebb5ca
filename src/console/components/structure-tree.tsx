import { useState } from 'preact/hooks';
import { descendants, type TreeNode } from '../group-tree';
import { to } from '../routes';

function Label({ node }: { node: TreeNode }) {
  const nested = node.children.length;
  const below = descendants(node);
  return (
    <span class="tree-label">
      <span class="tree-name">{node.group.displayName}</span>
      <span class="muted">
        {' '}
        · level {node.group.depth}
        {nested === 0 ? '' : ` · ${nested} nested${below > nested ? `, ${below} below` : ''}`}
        {node.group.memberCount === undefined ? '' : ` · ${node.group.memberCount} members`}
      </span>
    </span>
  );
}

/** A link to the group's own structure page (outside the disclosure's summary: no control in a control). */
function OpenLink({ node, connector }: { node: TreeNode; connector: string }) {
  if (node.group.depth === 0) return null;
  return (
    <a class="tree-open" href={to.structure(connector, node.group.id)}>
      open<span class="visually-hidden"> {node.group.displayName}</span>
    </a>
  );
}

function Remarks({ node }: { node: TreeNode }) {
  if (node.alsoContains.length === 0 && node.notices.length === 0) return null;
  return (
    <ul class="tree-remarks">
      {node.alsoContains.map((group) => (
        <li key={group.id}>
          also contains {group.displayName}
          {node.group.path.some((step) => step.id === group.id)
            ? ', which contains it: a cycle'
            : ' (shown where it is first reached)'}
        </li>
      ))}
      {node.notices.map((notice, index) =>
        // A cycle runs through many groups: each says it is in one; the notice above names it.
        notice.kind === 'cycle' ? (
          <li key={`n${index}`} class="tree-cycle">
            in a cycle of nested groups (see the notices above)
          </li>
        ) : (
          <li key={`n${index}`} class="notice">
            <span class="notice-kind">{notice.kind}:</span> {notice.message}
          </li>
        ),
      )}
    </ul>
  );
}

function Branch({
  node,
  connector,
  openDepth,
}: {
  node: TreeNode;
  connector: string;
  openDepth: number;
}) {
  if (node.children.length === 0) {
    return (
      <li class="tree-leaf">
        <Label node={node} />
        <OpenLink node={node} connector={connector} />
        <Remarks node={node} />
      </li>
    );
  }
  return (
    <li>
      <details open={node.group.depth < openDepth}>
        <summary>
          <Label node={node} />
        </summary>
        <OpenLink node={node} connector={connector} />
        <Remarks node={node} />
        <ul>
          {node.children.map((child) => (
            <Branch key={child.group.id} node={child} connector={connector} openDepth={openDepth} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/**
 * The nested groups under a group, collapsible level by level (native disclosure widgets:
 * keyboard and screen readers work as everywhere else), with relations and notices where
 * they occur.
 */
export function StructureTree({ root, connector }: { root: TreeNode; connector: string }) {
  // Changing the key rebuilds the widgets with everything open or closed.
  const [view, setView] = useState({ openDepth: 2, generation: 0 });
  return (
    <div class="structure-tree">
      <div class="toolbar">
        <button
          type="button"
          onClick={() => setView((v) => ({ openDepth: 99, generation: v.generation + 1 }))}
        >
          Expand all
        </button>
        <button
          type="button"
          onClick={() => setView((v) => ({ openDepth: 1, generation: v.generation + 1 }))}
        >
          Collapse all
        </button>
      </div>
      <ul
        class="tree"
        key={view.generation}
        aria-label={`Groups nested in ${root.group.displayName}`}
      >
        <Branch node={root} connector={connector} openDepth={view.openDepth} />
      </ul>
    </div>
  );
}
