/** A group on a target, as imported into the role catalogue or found by name. */
export interface GroupRef {
  id: string;
  displayName: string;
  /** False when the target will not let the service write this group's members. */
  writable?: boolean;
  /** Why members cannot be written (dynamic, mail-enabled, synced from on-premises...). */
  notWritableReason?: string;
  /**
   * Set on a role the catalogue marks gone (an import's read by id found no such group):
   * since when. The target may have the group again since; a write's answer tells.
   */
  goneSince?: string;
}

/** A group named in a result, for messages: "Sales (8f1c...)". */
export function describeGroup(group: Pick<GroupRef, 'id' | 'displayName'>): string {
  return group.displayName === group.id ? group.id : `${group.displayName} (${group.id})`;
}
