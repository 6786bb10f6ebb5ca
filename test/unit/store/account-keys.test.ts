import { describe, expect, it } from 'vitest';
import { accountFilter, type AccountKeys } from '../../../src/store/account-keys';

/** Six SCIM-like connectors (lower case) and two Graph-like ones (a bare name completed). */
const KEYS: AccountKeys = {
  keyOf: (connector, accountId) =>
    connector.startsWith('entra') && !accountId.includes('@')
      ? `${accountId}@contoso.example`.toLowerCase()
      : accountId.toLowerCase(),
  connectors: () => ['app-1', 'app-2', 'app-3', 'entra-1', 'app-4', 'app-5', 'entra-2', 'app-6'],
};

const comparisons = (filter: string) => filter.match(/ eq /g)?.length ?? 0;

describe('accountFilter', () => {
  it('matches the key or, for rows written before it, the spelling given', () => {
    expect(accountFilter(KEYS, "O'Neil@Contoso.example", 'entra-1')).toBe(
      "(accountKey eq 'o''neil@contoso.example' or accountId eq 'O''Neil@Contoso.example')",
    );
  });

  it('with no connector, needs 2 comparisons while the connectors agree on the key', () => {
    const filter = accountFilter(KEYS, 'Ada@Contoso.example', undefined);
    expect(filter).toBe(
      "(accountKey eq 'ada@contoso.example' or accountId eq 'Ada@Contoso.example')",
    );
  });

  it('with no connector and keys that differ, names only the connectors in the minority', () => {
    const filter = accountFilter(KEYS, 'Ada', undefined);
    expect(filter).toBe(
      "((accountKey eq 'ada' and not (connector eq 'entra-1' or connector eq 'entra-2'))" +
        " or (accountKey eq 'ada@contoso.example' and (connector eq 'entra-1' or connector eq 'entra-2'))" +
        " or accountId eq 'Ada')",
    );
    // Table Storage allows 15 comparisons in a filter, the store's own clauses included.
    expect(comparisons(filter)).toBe(7);
  });

  it('with no connector configured, matches the spelling given', () => {
    const none: AccountKeys = { ...KEYS, connectors: () => [] };
    expect(accountFilter(none, 'Ada', undefined)).toBe("(accountId eq 'Ada')");
  });
});
