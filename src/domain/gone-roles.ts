import { describeGroup, type GroupRef } from './group';
import type { MembershipWritePlan } from './membership-plan';

/**
 * setMemberships and the roles the catalogue marks gone (their group's read by id answered
 * the target's own 404 at an import). The target may have the group again since (Entra ID
 * restores a deleted group with its members for 30 days), so the mark decides nothing alone:
 * a named one is written like any named group, and the target's answer and the read-back
 * tell; an unnamed one the read shows the account in is taken out like any managed group
 * (DESIGN invariant 9: the read plans, the write and read-back decide), and where the read
 * could not show it, the step says so instead of staying silent.
 */
export interface GoneRoleOutcome {
  notices: string[];
}

/**
 * After the read before the writes: each gone role the read shows the account in joins the
 * groups the step takes it out of (writable ones; others are left alone and named), and the
 * plan verifies it as left. A gone role the read could not cover (a connector that reads
 * only named groups) that the service itself granted is named in a notice: the account may
 * still be in it. Changes `plan` in place.
 */
export function planGoneRoles(
  plan: MembershipWritePlan,
  context: {
    named: readonly GroupRef[];
    seen: ReadonlySet<string>;
    /** Whether the read showed every group of the account (else only those asked for). */
    readAll: boolean;
    read: boolean;
    assigned: readonly string[];
  },
): GoneRoleOutcome {
  const notices: string[] = [];
  const gone = new Map(plan.gone.map((group) => [group.id, group]));
  for (const group of context.named) {
    const role = plan.goneNamed.find((candidate) => candidate.id === group.id);
    if (role === undefined) continue;
    notices.push(
      `${marked(role)}: written as named all the same, and the target's answer and the read-back tell whether it has the group; import the catalogue again to bring the role back`,
    );
  }
  for (const group of gone.values()) {
    if (context.seen.has(group.id)) {
      if (group.writable === false) {
        notices.push(
          `${marked(group)}, yet the target shows the account in it: left alone, the service may not write its members (${group.notWritableReason ?? 'not writable'})`,
        );
        continue;
      }
      plan.removeIfPresent.push(group.id);
      plan.expected[group.id] = false;
      notices.push(
        `${marked(group)}, yet the target shows the account in it: taken out, as setMemberships asks; import the catalogue again to bring the role back`,
      );
    } else if (!(context.read && context.readAll) && context.assigned.includes(group.id)) {
      notices.push(
        `${marked(group)}; the service granted it before and this step did not read it (could not tell whether the target still has the group with the account in it): import the catalogue again, then set the memberships again`,
      );
    }
  }
  return { notices };
}

function marked(group: GroupRef): string {
  return `${describeGroup(group)} is marked gone in the role catalogue (since ${group.goneSince ?? 'an earlier import'})`;
}
