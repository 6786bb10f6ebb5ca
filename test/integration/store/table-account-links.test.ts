import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { TableAccountLinks } from '../../../src/store/table-account-links';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let links: TableAccountLinks;

beforeAll(async () => {
  storage = await startTestStorage();
  links = new TableAccountLinks(tableClient(storage.connection, 'Links'));
});
afterAll(() => storage.close());

describe('TableAccountLinks', () => {
  it('stores, replaces and removes a link for an account ID with / # ? in it', async () => {
    const link = {
      connector: 'hr',
      accountId: 'a/b#c?d',
      targetId: 't-1',
      linkedAt: '2025-05-01T00:00:00.000Z',
      assignedGroups: [],
    };
    expect(await links.get('hr', 'a/b#c?d')).toBeUndefined();
    await links.put(link);
    expect(await links.get('hr', 'a/b#c?d')).toEqual(link);
    expect(await links.get('crm', 'a/b#c?d')).toBeUndefined();

    const relinked = { ...link, targetId: 't-2', linkedAt: '2025-05-02T00:00:00.000Z' };
    await links.put(relinked);
    expect(await links.get('hr', 'a/b#c?d')).toEqual(relinked);

    await links.remove('hr', 'a/b#c?d');
    expect(await links.get('hr', 'a/b#c?d')).toBeUndefined();
  });

  it("keeps what the service last wrote, and applies a step's update to it", async () => {
    const at = '2026-11-23T08:00:00.000Z';
    await links.update('hr', 'ada', { link: { targetId: 'u-1', linkedAt: at, createdAt: at } });
    await links.update('hr', 'ada', {
      enabled: { value: false, at },
      granted: ['g-2', 'g-1'],
    });
    await links.update('hr', 'ada', { revoked: ['g-2'] });
    expect(await links.get('hr', 'ada')).toEqual({
      connector: 'hr',
      accountId: 'ada',
      targetId: 'u-1',
      linkedAt: at,
      createdAt: at,
      enabled: false,
      enabledAt: at,
      assignedGroups: ['g-1'],
    });
    // Deleted: the link goes, the deleted object is remembered (a lagging read may show it).
    await links.update('hr', 'ada', { removed: { targetId: 'u-1', at } });
    expect(await links.get('hr', 'ada')).toEqual({
      connector: 'hr',
      accountId: 'ada',
      targetId: '',
      linkedAt: at,
      assignedGroups: [],
      deletedTargetIds: [{ id: 'u-1', at }],
    });
    // Created again: linked to the new object, the deleted one still remembered.
    await links.update('hr', 'ada', { link: { targetId: 'u-2', linkedAt: at, createdAt: at } });
    expect(await links.get('hr', 'ada')).toMatchObject({
      targetId: 'u-2',
      deletedTargetIds: [{ id: 'u-1', at }],
    });
    // An update without a link for an unknown account keeps nothing.
    await links.update('hr', 'bob', { granted: ['g-1'] });
    expect(await links.get('hr', 'bob')).toBeUndefined();
  });

  it('removes an absent link without complaint', async () => {
    await expect(links.remove('hr', 'never-linked')).resolves.toBeUndefined();
  });
});
