import { describe, expect, it } from 'vitest';
import {
  describeStrangers,
  strangers,
} from '../../../../src/connectors/scim/compatibility-filter-control';

const list = (...names: string[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  Resources: names.map((displayName, i) => ({ id: `g${i}`, displayName })),
});

describe('strangers: what a filtered answer holds that the filter excludes', () => {
  it('finds none in an answer that holds only matches, compared without case', () => {
    expect(strangers(list('Sales EMEA', 'sales apac'), 'displayName', 'co', 'SALES')).toEqual([]);
    expect(strangers(list('Sales'), 'displayName', 'eq', 'sales')).toEqual([]);
  });

  it('names the resources a server that ignores the filter answered', () => {
    expect(strangers(list('Sales', 'Finance'), 'displayName', 'eq', 'Sales')).toEqual(['Finance']);
    expect(strangers(list('Sales', 'Finance'), 'displayName', 'co', 'ale')).toEqual(['Finance']);
  });

  it('counts a resource without the attribute as a stranger, and reads no list as none', () => {
    expect(strangers({ Resources: [{ id: 'u1' }] }, 'userName', 'eq', 'ada')).toEqual(['u1']);
    expect(strangers({ status: '404', detail: 'no match' }, 'userName', 'eq', 'ada')).toEqual([]);
    expect(strangers('not json', 'userName', 'eq', 'ada')).toEqual([]);
  });

  it('describes at most three by name', () => {
    expect(describeStrangers(['a'])).toBe('1 that does not match ("a")');
    expect(describeStrangers(['a', 'b', 'c', 'd', 'e'])).toBe(
      '5 that do not match ("a", "b", "c", and 2 more)',
    );
  });
});
