import { odata } from '@azure/data-tables';
import type { AccountKeyOf } from './account-rows';

/**
 * How the service tells a connector's accounts apart: the connector's canonical form of an
 * account ID (`Connector.accountKey`, asked through the registry), the key the account's
 * lease and record are kept under. Rows that name an account (journal entries, request-list
 * rows, drift findings) carry it in an `accountKey` column, so that a filter by account finds
 * every row of the account whatever spelling each request used.
 */
export interface AccountKeys {
  keyOf: AccountKeyOf;
  /** The connectors configured: a filter by account that names no connector asks each one's key. */
  connectors(): readonly string[];
}

/** Every ID its own key, no connector known: stores built without the registry (tests, tools). */
export const ACCOUNT_IDS_AS_GIVEN: AccountKeys = {
  keyOf: (_connector, accountId) => accountId,
  connectors: () => [],
};

/**
 * The account's key under each connector a filter by account reads: the named connector's,
 * else each configured connector's.
 */
export function accountKeysOf(
  keys: AccountKeys,
  accountId: string,
  connector: string | undefined,
): { connector: string; key: string }[] {
  const connectors = connector === undefined ? keys.connectors() : [connector];
  return connectors.map((name) => ({ connector: name, key: keys.keyOf(name, accountId) }));
}

/**
 * An OData filter for the rows of an account, whatever spelling wrote them: the key column
 * equal to the account's key, or the `accountId` column equal to the ID as given. The second
 * finds rows written before rows carried the key (Table Storage's filters cannot lower-case
 * a column: such a row is found by the spelling it was written with), and, with no connector
 * named, rows of connectors no longer configured.
 *
 * With no connector named, the configured connectors may give the ID different keys (a bare
 * name a Graph connector completes): the key most of them give matches every connector's
 * rows but the others', and each other key the rows of the connectors that give it (by the
 * rows' `connector` column). Table Storage allows 15 comparisons in a filter: this takes
 * 2 while the connectors agree, and 2 more per connector that gives another key (and 1 per
 * such key).
 *
 * @example
 * accountFilter(keys, 'Ada@Contoso.example', 'entra');
 * // "(accountKey eq 'ada@contoso.example' or accountId eq 'Ada@Contoso.example')"
 */
export function accountFilter(
  keys: AccountKeys,
  accountId: string,
  connector: string | undefined,
): string {
  const byKey = new Map<string, string[]>();
  for (const { connector: name, key } of accountKeysOf(keys, accountId, connector)) {
    byKey.set(key, [...(byKey.get(key) ?? []), name]);
  }
  const exact = odata`accountId eq ${accountId}`;
  const [most, ...others] = [...byKey].sort(([, a], [, b]) => b.length - a.length);
  if (most === undefined) return `(${exact})`;
  const anyOf = (names: readonly string[]) =>
    `(${names.map((name) => odata`connector eq ${name}`).join(' or ')})`;
  const clauses = [
    others.length === 0
      ? odata`accountKey eq ${most[0]}`
      : `(${odata`accountKey eq ${most[0]}`} and not ${anyOf(others.flatMap(([, names]) => names))})`,
    ...others.map(([key, names]) => `(${odata`accountKey eq ${key}`} and ${anyOf(names)})`),
  ];
  return `(${[...clauses, exact].join(' or ')})`;
}
