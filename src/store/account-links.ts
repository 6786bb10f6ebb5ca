/** Account ID in the service <-> the target's own id (DESIGN: src/store). */
export interface AccountLink {
  connector: string;
  accountId: string;
  targetId: string;
  /** ISO time the link was made or last confirmed. */
  linkedAt: string;
}

export interface AccountLinkStore {
  get(connector: string, accountId: string): Promise<AccountLink | undefined>;
  /** Upsert. */
  put(link: AccountLink): Promise<void>;
  /** Removing an absent link is not an error. */
  remove(connector: string, accountId: string): Promise<void>;
}
