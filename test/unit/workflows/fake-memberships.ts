/**
 * Direct memberships of a fake target as a log of writes: the target knows each write at
 * once, but reads see it only `delayMs` later on the virtual clock (graph-behaviour.md:
 * replication delay).
 */
export class FakeMemberships {
  private readonly events: { userId: string; groupId: string; member: boolean; at: number }[] = [];

  constructor(public delayMs: number) {}

  /** A membership that has been visible for ever (seeded, or made elsewhere). */
  seed(userId: string, groupId: string): void {
    this.events.push({ userId, groupId, member: true, at: Number.NEGATIVE_INFINITY });
  }

  /** A write at virtual time `at`. */
  write(userId: string, groupId: string, member: boolean, at: number): void {
    this.events.push({ userId, groupId, member, at });
  }

  /** The groups the target knows the account to be in, visible or not. */
  known(userId: string): string[] {
    return this.groupsAt(userId, Number.POSITIVE_INFINITY);
  }

  /** The groups a read at virtual time `at` sees. */
  visible(userId: string, at: number): string[] {
    return this.groupsAt(userId, at);
  }

  private groupsAt(userId: string, at: number): string[] {
    const state = new Map<string, boolean>();
    for (const event of this.events) {
      if (event.userId === userId && event.at + this.delayMs <= at) {
        state.set(event.groupId, event.member);
      }
    }
    return [...state].filter(([, member]) => member).map(([groupId]) => groupId);
  }
}
