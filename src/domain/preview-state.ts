import type { AccountChanges, TargetAccount } from './account';

/** What a preview's simulated writes did to one account, as later steps must see it. */
interface AccountOverlay {
  /** A simulated create made it: the target does not know it. */
  created?: TargetAccount;
  /** A simulated delete removed it. */
  gone?: boolean;
  enabled?: boolean;
  /** Attributes a simulated update wrote. */
  profile?: AccountChanges;
  /** Direct memberships simulated writes set, by group id. */
  memberships: Map<string, boolean>;
  /** Group names the writes named, for reads that show the groups. */
  names: Record<string, string>;
}

/**
 * The state a preview's earlier steps would leave, laid over what reads of the target show:
 * a later step of the same preview reads the account its create would make, the groups its
 * grant would add, no account after its delete. Nothing here is ever sent to a target.
 */
export class PreviewState {
  private readonly accounts = new Map<string, AccountOverlay>();
  private readonly createdIds = new Map<string, string>();
  /** What reads showed of an account's existence, by the target's id. */
  private readonly seen = new Map<string, boolean>();

  /** The account a simulated create made for this account ID, unless a later delete removed it. */
  createdFor(accountId: string): TargetAccount | undefined {
    const id = this.createdIds.get(accountId);
    const overlay = id === undefined ? undefined : this.accounts.get(id);
    return overlay?.created === undefined || overlay.gone === true
      ? undefined
      : this.apply(overlay.created);
  }

  /** Records the account a simulated create would make. */
  create(account: TargetAccount): void {
    this.createdIds.set(account.accountId, account.id);
    this.overlay(account.id).created = account;
  }

  isCreated(id: string): boolean {
    return this.accounts.get(id)?.created !== undefined;
  }

  isGone(id: string): boolean {
    return this.accounts.get(id)?.gone === true;
  }

  /** Whether the account exists as far as the preview knows: undefined when only a read can tell. */
  exists(id: string): boolean | undefined {
    if (this.isGone(id)) return false;
    if (this.isCreated(id)) return true;
    return this.seen.get(id);
  }

  /** What a read of the target showed of the account's existence. */
  noteRead(id: string, present: boolean): void {
    this.seen.set(id, present);
  }

  remove(id: string): void {
    this.overlay(id).gone = true;
  }

  setEnabled(id: string, enabled: boolean): void {
    this.overlay(id).enabled = enabled;
  }

  update(id: string, changes: AccountChanges): void {
    const overlay = this.overlay(id);
    const attributes = { ...overlay.profile?.attributes, ...changes.attributes };
    overlay.profile = {
      ...overlay.profile,
      ...changes,
      ...(Object.keys(attributes).length === 0 ? {} : { attributes }),
    };
  }

  /** The account as a read would show it after the simulated writes: undefined once deleted. */
  apply(account: TargetAccount): TargetAccount | undefined {
    const overlay = this.accounts.get(account.id);
    if (overlay === undefined) return account;
    if (overlay.gone === true) return undefined;
    const written = overlay.profile;
    return {
      ...account,
      ...(overlay.enabled === undefined ? {} : { enabled: overlay.enabled }),
      ...(written === undefined
        ? {}
        : { profile: readableAfter(account.profile, written, overlay.created !== undefined) }),
    };
  }

  /** Whether a simulated write set the account's membership of the group (undefined: none did). */
  membership(id: string, groupId: string): boolean | undefined {
    const overlay = this.accounts.get(id);
    if (overlay?.created !== undefined) return overlay.memberships.get(groupId) ?? false;
    return overlay?.memberships.get(groupId);
  }

  setMembership(id: string, groupId: string, member: boolean, name: string | undefined): void {
    const overlay = this.overlay(id);
    overlay.memberships.set(groupId, member);
    if (name !== undefined) overlay.names[groupId] = name;
  }

  /**
   * The groups a read shows (`read`: what the target showed, among `asked`), with the
   * simulated writes applied; names of the groups they added.
   */
  memberships(
    id: string,
    read: readonly string[],
    asked: readonly string[],
  ): { groupIds: string[]; names: Record<string, string> } {
    const overlay = this.accounts.get(id);
    if (overlay === undefined) return { groupIds: [...read], names: {} };
    const groups = new Set(read);
    for (const [groupId, member] of overlay.memberships) {
      if (!member) groups.delete(groupId);
      else if (asked.includes(groupId) || overlay.created !== undefined) groups.add(groupId);
    }
    return { groupIds: [...groups], names: { ...overlay.names } };
  }

  private overlay(id: string): AccountOverlay {
    let overlay = this.accounts.get(id);
    if (overlay === undefined) {
      overlay = { memberships: new Map(), names: {} };
      this.accounts.set(id, overlay);
    }
    return overlay;
  }
}

/**
 * The attributes a read shows after an update: written values replace what the target reads
 * back; an attribute the target does not read back stays unread, as it would on the target
 * (the update then says it could not verify it). A created account shows what was written.
 */
function readableAfter(
  seen: AccountChanges | undefined,
  written: AccountChanges,
  created: boolean,
): AccountChanges {
  if (created) {
    return {
      ...seen,
      ...written,
      attributes: { ...seen?.attributes, ...written.attributes },
    };
  }
  const next: AccountChanges = { ...seen };
  for (const key of ['displayName', 'givenName', 'familyName', 'email'] as const) {
    const value = written[key];
    if (value !== undefined && seen?.[key] !== undefined) next[key] = value;
  }
  const attributes = { ...seen?.attributes };
  for (const [key, value] of Object.entries(written.attributes ?? {})) {
    if (seen?.attributes?.[key] !== undefined) attributes[key] = value;
  }
  if (Object.keys(attributes).length > 0) next.attributes = attributes;
  return next;
}
