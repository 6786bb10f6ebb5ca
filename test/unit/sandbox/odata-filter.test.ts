import { describe, expect, it } from 'vitest';
import { odataString } from '../../../src/connectors/graph/graph-urls';
import { compileODataFilter } from '../../../src/sandbox/graph/odata-filter';

/*
 * The Graph sandbox reads `$filter` string literals as OData does: single quotes, a quote
 * inside doubled, every other character (backslash and double quote included) literal.
 */
const NAMES = [
  "O'Brien's Team",
  "''",
  'Quote "Q" Group',
  'C:\\Share Admins',
  'R&D #1 100% +plus',
  '営業 チーム',
  'Équipe Ωmega 🎉',
];
const groups = NAMES.map((displayName, id) => ({ id: String(id), displayName }));
const compile = (filter: string) => compileODataFilter(filter, ['displayName'], 'Group');

describe('Graph sandbox $filter string literals', () => {
  it.each(NAMES)('finds %j, and nothing else, with the connector quoting', (name) => {
    const matches = compile(`displayName eq ${odataString(name)}`);
    expect(groups.filter(matches).map((g) => g.displayName)).toEqual([name]);
  });

  it('reads startswith with a doubled quote, ignoring case as Entra ID does', () => {
    const matches = compile(`startswith(displayName,${odataString("o'b")})`);
    expect(groups.filter(matches).map((g) => g.displayName)).toEqual(["O'Brien's Team"]);
  });

  it('takes a backslash literally: OData has no backslash escapes', () => {
    const matches = compile("displayName eq 'C:\\Share Admins'");
    expect(groups.filter(matches).map((g) => g.displayName)).toEqual(['C:\\Share Admins']);
  });

  it.each([
    ['a single quote not doubled', "displayName eq 'O'Brien's Team'"],
    ['an unterminated literal', "displayName eq 'O''Brien"],
  ])('answers 400 for %s', (_what, filter) => {
    expect(() => compile(filter)).toThrowError(expect.objectContaining({ status: 400 }));
  });
});
