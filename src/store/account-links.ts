import type { AccountRecord, AccountRecordUpdate } from '../domain/account-record';

/**
 * Account ID in the service <-> the target's own id, with what the service last wrote for
 * the account (DESIGN: src/store; the record's model is in src/domain/account-record.ts).
 */
export type AccountLink = AccountRecord;

export interface AccountLinkStore {
  get(connector: string, accountId: string): Promise<AccountLink | undefined>;
  /** Upsert. */
  put(link: AccountLink): Promise<void>;
  /**
   * Applies a step's update to the record (creates or changes it) and returns the record as
   * stored; `stored` is the record as it is now when the caller knows it (no read then).
   */
  update(
    connector: string,
    accountId: string,
    update: AccountRecordUpdate,
    stored?: AccountLink | null,
  ): Promise<AccountLink | null>;
  /**
   * Every account the service links on the connector (records of accounts it deleted left
   * out), page by page: what reconciliation compares the target with.
   */
  listLinked(connector: string): AsyncIterable<AccountLink>;
  /** Removing an absent link is not an error. */
  remove(connector: string, accountId: string): Promise<void>;
}
