import type { AppliedMembershipChange, MembershipRead } from '../../connectors/connector';
import { roleAnswersTo } from '../../domain/catalogue-import';
import { ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { describeSelector } from '../../domain/provisioning-request';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type {
  ApplyMembershipChangesInput,
  ConnectorInput,
  LookUpRolesInput,
  ReadMembershipsInput,
  ResolveGroupInput,
} from './activity-inputs';
import { connectorOf } from './connector-of';

/** Membership activities: the steps of the spec's membership write procedure, one call each. */
export function membershipActivities(services: ServicesProvider) {
  return {
    /**
     * The groups a request names, looked up in the role catalogue with one read (no target
     * call): a group named by id is taken as it is; a name found nowhere comes back null
     * and is looked up on the target by `resolveGroup`.
     */
    async lookUpRoles(input: LookUpRolesInput): Promise<ActivityResult<(GroupRef | null)[]>> {
      return runActivity('lookUpRoles', services, async (s) => {
        const roles = await s.catalogue.list(input.connector);
        return input.selectors.map((selector) => {
          if ('id' in selector) {
            const role = roles.find((r) => r.groupId === selector.id);
            return { id: selector.id, displayName: role?.targetName ?? selector.id };
          }
          const matches = roles.filter((role) => roleAnswersTo(role, selector.name));
          if (matches.length > 1) {
            throw new ProvisioningError(
              'REQUEST_INVALID',
              `group ${describeSelector(selector)} names ${matches.length} roles of connector ` +
                `"${input.connector}" (${matches.map((r) => r.groupId).join(', ')}): name the group by id`,
              { object: selector.name },
            );
          }
          const [role] = matches;
          return role === undefined ? null : { id: role.groupId, displayName: role.targetName };
        });
      });
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

    /** The connector's managed groups: the present roles of its catalogue (setMemberships). */
    async listManagedGroups(input: ConnectorInput): Promise<ActivityResult<GroupRef[]>> {
      return runActivity('listManagedGroups', services, async (s) => {
        const roles = await s.catalogue.list(input.connector);
        return roles.map((role) => ({ id: role.groupId, displayName: role.targetName }));
      });
    },

    /** Spec: Membership write procedure, steps 1 and 4 (one read, or one group for `named`). */
    async readMemberships(input: ReadMembershipsInput): Promise<ActivityResult<MembershipRead>> {
      return runActivity('readMemberships', services, (s) =>
        connectorOf(s, input.connector).readMemberships(input.account, input.groupIds),
      );
    },

    /** Spec: steps 2 and 3 for at most `membershipWriteBatchSize` groups: one write call. */
    async applyMembershipChanges(
      input: ApplyMembershipChangesInput,
    ): Promise<ActivityResult<AppliedMembershipChange[]>> {
      return runActivity('applyMembershipChanges', services, (s) =>
        connectorOf(s, input.connector).applyMembershipPlan(
          input.account,
          { add: input.add, remove: input.remove, unchanged: [], expected: [] },
          input.names,
        ),
      );
    },
  };
}
