import { describe, expect, it } from 'vitest';
import { interpretListResponse } from '../../../../src/connectors/scim/list-response';

describe('interpretListResponse', () => {
  it.each([
    [
      'a standard ListResponse',
      { totalResults: 2, itemsPerPage: 2, startIndex: 1, Resources: [{ id: 'a' }, { id: 'b' }] },
      { resources: [{ id: 'a' }, { id: 'b' }], totalResults: 2, itemsPerPage: 2, startIndex: 1 },
    ],
    [
      'numbers as strings',
      { totalResults: '3', itemsPerPage: '1', startIndex: '2', Resources: [{ id: 'b' }] },
      { resources: [{ id: 'b' }], totalResults: 3, itemsPerPage: 1, startIndex: 2 },
    ],
    ['no Resources and no numbers', { schemas: [] }, { resources: [] }],
    ['lowercase resources', { resources: [{ id: 'a' }] }, { resources: [{ id: 'a' }] }],
    ['unreadable numbers dropped', { totalResults: 'many', Resources: [] }, { resources: [] }],
  ])('%s', (_name, body, expected) => {
    expect(interpretListResponse(body, 'GET /Users')).toEqual(expected);
  });

  it('refuses what is not a ListResponse, naming the call', () => {
    expect(() => interpretListResponse('<html>', 'GET /Users')).toThrow(
      /GET \/Users answered without/,
    );
    expect(() => interpretListResponse({ Resources: {} }, 'GET /Groups')).toThrow(/not a list/);
  });
});
