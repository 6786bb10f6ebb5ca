import type { AccountChanges, AccountProfile, TargetAccount } from '../../domain/account';
import type { JournalEntry } from '../../domain/journal-entry';
import type { GroupSelector } from '../../domain/provisioning-request';

/** Activity inputs: JSON, and never a secret (DESIGN: src/workflows; invariant 5). */
export interface ConnectorInput {
  connector: string;
}
export interface LeaseInput extends ConnectorInput {
  accountId: string;
  owner: string;
  nowMs: number;
  ttlMs: number;
}
export interface FindAccountInput extends ConnectorInput {
  accountId: string;
}
export interface CreateAccountInput extends ConnectorInput {
  profile: AccountProfile;
  /** Name of the transient password secret; the secret stays for later steps unless `discardAfterUse`. */
  passwordSecret?: string;
  discardAfterUse?: boolean;
  at: string;
}
export interface AccountInput extends ConnectorInput {
  account: TargetAccount;
}
export interface UpdateAccountInput extends AccountInput {
  changes: AccountChanges;
}
export interface SetEnabledInput extends AccountInput {
  enabled: boolean;
}
export interface SetPasswordInput extends AccountInput {
  passwordSecret: string;
  discardAfterUse: boolean;
}
export interface ResolveGroupInput extends ConnectorInput {
  selector: GroupSelector;
}
export interface LookUpRolesInput extends ConnectorInput {
  selectors: GroupSelector[];
}
export interface ReadMembershipsInput extends AccountInput {
  groupIds: string[];
}
export interface ApplyMembershipChangesInput extends AccountInput {
  add: string[];
  remove: string[];
  names: Record<string, string>;
}
export interface RecordJournalInput {
  entries: JournalEntry[];
}
export interface ImportCatalogueInput extends ConnectorInput {
  jobId: string;
  overwriteExisting: boolean;
  at: string;
}
