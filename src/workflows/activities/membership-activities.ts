import { ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { membershipCallChangedNothing } from '../../domain/lost-answer';
import { worthReadingBack } from '../../domain/membership-writes';
import { describeSelector } from '../../domain/provisioning-request';
import type { MembershipWriteReadBack } from '../../domain/step-ops';
import type { MembershipRead, MembershipWriteAnswer } from '../../domain/target-answers';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type {
  ConnectorInput,
  LookUpRolesInput,
  ReadMembershipsInput,
  ResolveGroupInput,
  WriteMembershipsInput,
} from './activity-inputs';
import { underIntent } from './claimed-intent';
import { connectorOf } from './connector-of';
import { underLease, type UnderLease } from './lease-deadline';
import { readAfterWrite } from './read-after-write';
import { groupOf, rolesNamed } from './role-lookup';

/** Membership activities: the steps of the spec's membership write procedure, one call each. */
export function membershipActivities(services: ServicesProvider) {
  return {
    /**
     * The groups a request names, looked up in the role catalogue with one read (no target
     * call), with whether their members may be written: a group named by id is taken as it
     * is; a name found nowhere comes back null and is looked up on the target by
     * `resolveGroup`.
     */
    async lookUpRoles(input: LookUpRolesInput): Promise<ActivityResult<(GroupRef | null)[]>> {
      return runActivity('lookUpRoles', services, async (s) =>
        rolesNamed(await s.catalogue.list(input.connector), input.connector, input.selectors),
      );
    },

    /** A group the catalogue does not know, found on the target by `displayName eq` (one call). */
    async resolveGroup(input: ResolveGroupInput): Promise<ActivityResult<GroupRef>> {
      return runActivity('resolveGroup', services, async (s) => {
        const { connector: name, selector } = input;
        if ('id' in selector) return { id: selector.id, displayName: selector.id };
        const group = await connectorOf(s, name).findGroup(selector.name);
        if (group === undefined) {
          throw new ProvisioningError(
            'GROUP_NOT_FOUND',
            `group ${describeSelector(selector)} not found in the role catalogue or on connector "${name}"`,
            { object: selector.name },
          );
        }
        return group;
      });
    },

    /**
     * The connector's managed groups (setMemberships): the roles of its catalogue, those
     * marked gone with `goneSince` (the target may have the group again since).
     */
    async listManagedGroups(input: ConnectorInput): Promise<ActivityResult<GroupRef[]>> {
      return runActivity('listManagedGroups', services, async (s) => {
        const roles = await s.catalogue.list(input.connector, { includeGone: true });
        return roles.map(groupOf);
      });
    },

    /** Spec: Membership write procedure, steps 1 and 4 (one read, or one group for `named`). */
    async readMemberships(input: ReadMembershipsInput): Promise<ActivityResult<MembershipRead>> {
      return runActivity('readMemberships', services, (s) =>
        connectorOf(s, input.connector).readMemberships(
          input.account,
          input.groupIds,
          input.confirmAbsent,
          input.absenceVouchedBefore === true,
        ),
      );
    },

    /**
     * Spec: steps 2 and 3 for at most `membershipWriteBatchSize` groups: one write call. The
     * intent is recorded first, so that a second run of this very write (the first one's
     * answer lost) counts an "already in place" as its own change (DESIGN invariant 1). With
     * `readBack`, the step's first read back follows the answered write (`readAfterWrite`).
     */
    async writeMemberships(
      input: WriteMembershipsInput & UnderLease,
    ): Promise<ActivityResult<MembershipWriteAnswer[] | MembershipWriteReadBack>> {
      return runActivity('writeMemberships', services, async (s) => {
        const answers = await underLease(s, input, input.account.accountId, () =>
          underIntent(
            s,
            input,
            membershipCallChangedNothing,
            () =>
              connectorOf(s, input.connector).writeMemberships(
                input.account,
                { add: input.add, remove: input.remove },
                input.names,
                input.writable,
              ),
            (answers, tried) =>
              answers.map((answer) => ({ ...answer, maybeOurs: answer.maybeOurs || tried })),
          ),
        );
        const asked = input.readBack;
        if (asked === undefined || !worthReadingBack(answers)) return answers;
        const readBack = await readAfterWrite(s, 'writeMemberships', () =>
          connectorOf(s, input.connector).readMemberships(
            input.account,
            asked.groupIds,
            asked.confirmAbsent,
            asked.absenceVouchedBefore === true,
          ),
        );
        return { answers, readBack } satisfies MembershipWriteReadBack;
      });
    },
  };
}
