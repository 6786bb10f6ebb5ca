import { describe, expect, it } from 'vitest';
import type { CatalogueRole } from '../../../src/domain/catalogue-import';
import { CachedRoleCatalogue } from '../../../src/store/cached-role-catalogue';
import type { RoleCatalogueStore } from '../../../src/store/role-catalogue';

/** A catalogue store that counts its reads; its roles are whatever the test puts in. */
function countingStore(roles: CatalogueRole[]) {
  const reads: string[] = [];
  const store: RoleCatalogueStore = {
    list: async (connector, options) => {
      reads.push(`${connector}${options?.search === undefined ? '' : ` search ${options.search}`}`);
      return roles.filter(
        (role) =>
          role.connector === connector &&
          (role.status === 'present' || options?.includeGone === true),
      );
    },
    get: async () => undefined,
    applyImportPage: async () => {
      roles.push(role('hr', 'g-2', 'Finance'));
      return { added: 1, renamed: 0, renameSkipped: 0, unchanged: 0, returned: 0 };
    },
    unseenRoles: async () => [],
    claimImport: async () => ({ held: true }),
    importLease: async () => undefined,
    releaseImport: async () => undefined,
    markRemoved: async () => 0,
    snapshot: async (connector) => ({ connector, size: 0 }),
    changeCursor: async () => undefined,
    saveChangeCursor: async () => undefined,
    saveImportProgress: async () => undefined,
    importProgress: async () => undefined,
  };
  return { store, reads };
}

function role(connector: string, groupId: string, name: string): CatalogueRole {
  return {
    connector,
    groupId,
    targetName: name,
    displayName: name,
    writable: true,
    status: 'present',
    firstImportedAt: '2026-11-23T08:00:00.000Z',
    lastImportedAt: '2026-11-23T08:00:00.000Z',
    lastSeenJobId: 'job-1',
  };
}

describe('CachedRoleCatalogue', () => {
  it("reads a connector's catalogue once for the steps of many requests, and again after the time", async () => {
    let now = 0;
    const { store, reads } = countingStore([role('hr', 'g-1', 'Sales')]);
    const cached = new CachedRoleCatalogue(store, () => now, 30_000);
    await Promise.all([cached.list('hr'), cached.list('hr'), cached.list('crm')]);
    now = 29_999;
    expect((await cached.list('hr')).map((r) => r.groupId)).toEqual(['g-1']);
    expect(reads).toEqual(['hr', 'crm']);
    now = 30_000;
    await cached.list('hr');
    expect(reads).toEqual(['hr', 'crm', 'hr']);
  });

  it('reads again at once after an import in this worker, and never caches a search', async () => {
    const { store, reads } = countingStore([role('hr', 'g-1', 'Sales')]);
    const cached = new CachedRoleCatalogue(store, () => 0);
    await cached.list('hr');
    await cached.applyImportPage('hr', [], { overwriteExisting: false, jobId: 'j', at: '' });
    expect((await cached.list('hr')).map((r) => r.groupId)).toEqual(['g-1', 'g-2']);
    await cached.list('hr', { search: 'Sal' });
    await cached.list('hr', { search: 'Sal' });
    expect(reads).toEqual(['hr', 'hr', 'hr search Sal', 'hr search Sal']);
  });

  it('serves the roles marked gone and the present ones from one read', async () => {
    const gone = { ...role('hr', 'g-9', 'Legal'), status: 'gone' as const };
    const { store, reads } = countingStore([role('hr', 'g-1', 'Sales'), gone]);
    const cached = new CachedRoleCatalogue(store, () => 0);
    expect((await cached.list('hr')).map((r) => r.groupId)).toEqual(['g-1']);
    expect((await cached.list('hr', { includeGone: true })).map((r) => r.groupId)).toEqual([
      'g-1',
      'g-9',
    ]);
    expect(reads).toEqual(['hr']);
  });
});
