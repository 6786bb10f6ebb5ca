import { ReplicatedValue } from './replicated-value.js';

/** The clock and the replication delay of one read. */
interface EdgeView {
  now: number;
  delayMs: number;
}

/**
 * Direct memberships (container -> member edges) with replication delay per edge, and a
 * reverse index so `memberOf` reads do not scan every container (20,000 groups seeded).
 */
export class MembershipGraph {
  private readonly byContainer = new Map<string, Map<string, ReplicatedValue<boolean>>>();
  private readonly byMember = new Map<string, Set<string>>();

  /** Seeding: the edge exists and is visible at once. */
  seed(containerId: string, memberId: string): void {
    this.edge(containerId, memberId).reset(true);
  }

  add(containerId: string, memberId: string, at: number): void {
    this.edge(containerId, memberId).write(true, at);
  }

  remove(containerId: string, memberId: string, at: number): void {
    const edge = this.byContainer.get(containerId)?.get(memberId);
    if (edge?.committed === true) edge.write(false, at);
  }

  isMember(containerId: string, memberId: string): boolean {
    return this.byContainer.get(containerId)?.get(memberId)?.committed === true;
  }

  committedMembers(containerId: string): string[] {
    return this.collect(this.byContainer.get(containerId), (edge) => edge.committed);
  }

  /** Containers the object is a committed direct member of. */
  committedContainers(memberId: string): string[] {
    return [...(this.byMember.get(memberId) ?? [])].filter((containerId) =>
      this.isMember(containerId, memberId),
    );
  }

  visibleMembers(containerId: string, view: EdgeView): string[] {
    return this.collect(this.byContainer.get(containerId), (edge) =>
      edge.visibleAt(view.now, view.delayMs),
    );
  }

  visibleContainers(memberId: string, view: EdgeView): string[] {
    const result: string[] = [];
    for (const containerId of this.byMember.get(memberId) ?? []) {
      if (
        this.byContainer.get(containerId)?.get(memberId)?.visibleAt(view.now, view.delayMs) === true
      ) {
        result.push(containerId);
      }
    }
    return result;
  }

  /** Whether this read sees any member edge of the container other than committed. */
  hasStaleMemberEdge(containerId: string, view: EdgeView): boolean {
    for (const edge of this.byContainer.get(containerId)?.values() ?? []) {
      if (edge.isStaleAt(view.now, view.delayMs)) return true;
    }
    return false;
  }

  /** Whether this read sees any edge from the member to a container other than committed. */
  hasStaleContainerEdge(memberId: string, view: EdgeView): boolean {
    for (const containerId of this.byMember.get(memberId) ?? []) {
      const edge = this.byContainer.get(containerId)?.get(memberId);
      if (edge?.isStaleAt(view.now, view.delayMs) === true) return true;
    }
    return false;
  }

  /** Removes every edge from and to an object that is being deleted. */
  removeEverywhere(objectId: string, at: number): void {
    for (const containerId of this.byMember.get(objectId) ?? [])
      this.remove(containerId, objectId, at);
    for (const memberId of this.committedMembers(objectId)) this.remove(objectId, memberId, at);
  }

  private edge(containerId: string, memberId: string): ReplicatedValue<boolean> {
    let members = this.byContainer.get(containerId);
    if (members === undefined) {
      members = new Map();
      this.byContainer.set(containerId, members);
    }
    let edge = members.get(memberId);
    if (edge === undefined) {
      edge = new ReplicatedValue<boolean>(false);
      members.set(memberId, edge);
      let containers = this.byMember.get(memberId);
      if (containers === undefined) {
        containers = new Set();
        this.byMember.set(memberId, containers);
      }
      containers.add(containerId);
    }
    return edge;
  }

  private collect(
    members: Map<string, ReplicatedValue<boolean>> | undefined,
    present: (edge: ReplicatedValue<boolean>) => boolean,
  ): string[] {
    const result: string[] = [];
    for (const [memberId, edge] of members ?? []) if (present(edge)) result.push(memberId);
    return result;
  }
}
