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

  it('removes an absent link without complaint', async () => {
    await expect(links.remove('hr', 'never-linked')).resolves.toBeUndefined();
  });
});
