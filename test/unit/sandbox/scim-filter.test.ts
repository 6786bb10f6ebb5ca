import { describe, expect, it } from 'vitest';
import { quoteFilterValue } from '../../../src/connectors/scim/filter';
import { matchesFilter } from '../../../src/sandbox/scim/filter-match';
import { parseScimFilter } from '../../../src/sandbox/scim/scim-filter';

/*
 * The SCIM sandbox reads filter strings as RFC 7644 §3.4.2.2 says real servers do: a
 * compValue is a JSON string, so `\"` and `\\` are escapes, anything JSON refuses is an
 * `invalidFilter`, and an unescaped quote ends the string.
 */
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:user';
const options = { caseSensitive: false, coreSchema: USER_SCHEMA };

const NAMES = [
  'jane"doe',
  'C:\\Share Admins',
  "o'brien",
  'R&D #1 100% +plus',
  'a b  c',
  '山田 太郎',
  'محمد',
  'party 🎉',
  'ends with backslash\\',
];

function valueOf(filter: string): unknown {
  const node = parseScimFilter(filter);
  return node.kind === 'compare' ? node.value : undefined;
}

function invalidFilter(filter: string): unknown {
  try {
    parseScimFilter(filter);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('SCIM sandbox filter strings', () => {
  it.each(NAMES)('reads back %j exactly as the connector quotes it', (name) => {
    expect(valueOf(`userName eq ${quoteFilterValue(name)}`)).toBe(name);
  });

  it.each(NAMES)('matches %j, and nothing else, among users with similar names', (name) => {
    const filter = parseScimFilter(`userName eq ${quoteFilterValue(name)}`);
    const users = NAMES.map((userName) => ({ id: userName, userName }));
    expect(users.filter((user) => matchesFilter(filter, user, options))).toEqual([
      { id: name, userName: name },
    ]);
  });

  it('compares userName without regard to case (RFC 7643: caseExact false), members exactly', () => {
    const user = { userName: 'Zoë "Q" Ωmega' };
    expect(matchesFilter(parseScimFilter('userName eq "zoË \\"q\\" ωMEGA"'), user, options)).toBe(
      true,
    );
    const group = { members: [{ value: 'Zoë' }] };
    expect(matchesFilter(parseScimFilter('members eq "zoë"'), group, options)).toBe(false);
    expect(matchesFilter(parseScimFilter('members eq "Zoë"'), group, options)).toBe(true);
  });

  it('reads JSON escapes: \\u sequences, \\/ and \\\\', () => {
    expect(valueOf('displayName eq "caf\\u00e9 \\/ \\\\"')).toBe('café / \\');
  });

  it.each([
    ['an unescaped quote inside the value', 'userName eq "jane"doe"'],
    ['an escape JSON does not know', 'userName eq "C:\\Share"'],
    ['a raw control character', 'userName eq "a\tb"'],
    ['an unterminated string', 'userName eq "jane'],
    ['an unquoted string', 'userName eq jane'],
  ])('answers 400 invalidFilter for %s', (_what, filter) => {
    expect(invalidFilter(filter)).toMatchObject({ status: 400, scimType: 'invalidFilter' });
  });
});
