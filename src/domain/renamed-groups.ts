import { describeGroup, type GroupRef } from './group';

/**
 * Notices for the named groups whose name on the target, as this step's reads and answers
 * showed it, is not the name the service knew them by (the role catalogue's at its last
 * import, or the target's when it was looked up): the group was renamed on the target since.
 * The service writes a group by its id, so a request that named "Sales" wrote to the group
 * that was "Sales" at the last import, whatever it is called now; the step says so, with
 * what to do, instead of reporting the change as if the group were still the one named
 * (spec, connector A rule 3: a rename reaches the service by an import). Groups whose name
 * the service did not know (named by an id the catalogue lacks) and those no read named
 * give no notice.
 *
 * @example
 * renamedOnTarget([{ id: 'g1', displayName: 'Sales' }], { g1: 'Domain Admins' });
 * // ['group Sales (g1) is named "Domain Admins" on the target: ...']
 */
export function renamedOnTarget(
  named: readonly GroupRef[],
  seen: Readonly<Record<string, string>>,
): string[] {
  return named.flatMap((group) => {
    const now = seen[group.id];
    if (now === undefined || now === group.id || group.displayName === group.id) return [];
    if (now === group.displayName) return [];
    return [
      `group ${describeGroup(group)} is named "${now}" on the target: renamed there since the ` +
        `role catalogue's last import; the step wrote the group by its id, so check it is still ` +
        `the one meant, and import the catalogue again ("Overwrite existing roles" takes the new name)`,
    ];
  });
}
