import { describe, expect, it } from 'vitest';
import {
  directoryObjectRef,
  graphQuery,
  odataString,
} from '../../../../src/connectors/graph/graph-urls';
import { memberRefPath } from '../../../../src/connectors/graph/graph-memberships';

describe('graphQuery', () => {
  it('keeps $-names literal and encodes spaces as %20, never +', () => {
    expect(
      graphQuery({ $filter: "displayName eq 'A B'", $select: 'id,displayName', $top: 5 }),
    ).toBe("?$filter=displayName%20eq%20'A%20B'&$select=id,displayName&$top=5");
  });

  it('encodes characters that would end the value', () => {
    expect(graphQuery({ $filter: "userPrincipalName eq 'a&b#c+d@x.example'" })).toBe(
      "?$filter=userPrincipalName%20eq%20'a%26b%23c%2Bd%40x.example'",
    );
  });

  it('leaves out undefined values and is empty without any', () => {
    expect(graphQuery({ $top: undefined })).toBe('');
  });
});

describe('odataString', () => {
  it('doubles single quotes', () => {
    expect(odataString("O'Brien")).toBe("'O''Brien'");
  });
});

describe('directoryObjectRef', () => {
  it('is built on the configured Graph endpoint (national clouds)', () => {
    expect(directoryObjectRef('https://graph.microsoft.us', 'u1')).toBe(
      'https://graph.microsoft.us/v1.0/directoryObjects/u1',
    );
  });
});

describe('memberRefPath', () => {
  it('always ends in /$ref: without it Graph deletes the user', () => {
    expect(memberRefPath('g1', 'u1')).toBe('/groups/g1/members/u1/$ref');
  });
});
