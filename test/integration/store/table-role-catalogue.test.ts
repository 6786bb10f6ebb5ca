import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupRef } from '../../../src/domain/group';
import { roleAnswersTo } from '../../../src/domain/catalogue-import';
import { tableClient } from '../../../src/store/storage-clients';
import { TableRoleCatalogue } from '../../../src/store/table-role-catalogue';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let catalogue: TableRoleCatalogue;

beforeAll(async () => {
  storage = await startTestStorage();
  catalogue = new TableRoleCatalogue(tableClient(storage.connection, 'Roles'));
});
afterAll(() => storage.close());

const T1 = '2025-04-01T08:00:00.000Z';
const T2 = '2025-04-02T08:00:00.000Z';
const T3 = '2025-04-03T08:00:00.000Z';
const none = { added: 0, renamed: 0, renameSkipped: 0, unchanged: 0, returned: 0 };
/** A lease judged at `nowMs` and renewed for a minute by the write that marks roles gone. */
const term = (nowMs: number) => ({ nowMs, ttlMs: 60_000 });

describe('TableRoleCatalogue', () => {
  it('imports, renames per overwrite, marks missing groups gone and brings them back', async () => {
    const first: GroupRef[] = [
      { id: 'g/1', displayName: 'Sales' },
      { id: 'g#2', displayName: 'Engineering' },
      {
        id: 'g?3',
        displayName: 'Finance',
        writable: false,
        notWritableReason: 'dynamic membership',
      },
    ];
    expect(
      await catalogue.applyImportPage('imp', first, {
        overwriteExisting: false,
        jobId: 'job-1',
        at: T1,
      }),
    ).toEqual({ ...none, added: 3 });
    expect(await catalogue.unseenRoles('imp', 'job-1')).toEqual([]);

    // job-2: Sales renamed on the target (overwrite off), Finance missing.
    const second: GroupRef[] = [
      { id: 'g/1', displayName: 'Sales EMEA' },
      { id: 'g#2', displayName: 'Engineering' },
    ];
    expect(
      await catalogue.applyImportPage('imp', second, {
        overwriteExisting: false,
        jobId: 'job-2',
        at: T2,
      }),
    ).toEqual({ ...none, renameSkipped: 1, unchanged: 1 });
    const unseen = await catalogue.unseenRoles('imp', 'job-2');
    expect(unseen.map((role) => role.groupId)).toEqual(['g?3']);
    expect(await catalogue.claimImport('imp', { jobId: 'job-2', nowMs: 0, ttlMs: 60_000 })).toEqual(
      {
        held: true,
      },
    );
    expect(
      await catalogue.markRemoved('imp', ['g?3'], { jobId: 'job-2', at: T2 }, term(1_000)),
    ).toBe(1);
    await catalogue.releaseImport('imp', 'job-2');

    expect(await catalogue.get('imp', 'g/1')).toMatchObject({
      displayName: 'Sales',
      targetName: 'Sales EMEA',
    });
    expect(await catalogue.get('imp', 'g?3')).toMatchObject({
      status: 'gone',
      goneSince: T2,
      writable: false,
      notWritableReason: 'dynamic membership',
      firstImportedAt: T1,
    });
    expect((await catalogue.list('imp')).map((role) => role.groupId)).toEqual(['g#2', 'g/1']);
    expect(
      (await catalogue.list('imp', { includeGone: true })).map((role) => role.displayName),
    ).toEqual(['Engineering', 'Finance', 'Sales']);

    // job-3 with overwrite: the skipped rename is applied and Finance returns, now writable.
    const third: GroupRef[] = [...second, { id: 'g?3', displayName: 'Finance' }];
    expect(
      await catalogue.applyImportPage('imp', third, {
        overwriteExisting: true,
        jobId: 'job-3',
        at: T3,
      }),
    ).toEqual({ ...none, renamed: 1, unchanged: 1, returned: 1 });
    const finance = await catalogue.get('imp', 'g?3');
    expect(finance).toMatchObject({ status: 'present', writable: true, lastSeenJobId: 'job-3' });
    expect(finance).not.toHaveProperty('goneSince');
    expect(finance).not.toHaveProperty('notWritableReason');
    expect((await catalogue.get('imp', 'g/1'))?.displayName).toBe('Sales EMEA');
  });

  it('reports the same counts when a page is applied twice by the same job', async () => {
    const page: GroupRef[] = [
      { id: 'a', displayName: 'Alpha' },
      { id: 'b', displayName: 'Beta' },
    ];
    const options = { overwriteExisting: false, jobId: 'job-r', at: T1 };
    const first = await catalogue.applyImportPage('retry', page, options);
    expect(await catalogue.applyImportPage('retry', page, options)).toEqual(first);
    expect(first).toEqual({ ...none, added: 2 });
    expect(await catalogue.list('retry')).toHaveLength(2);
  });

  it('imports a page larger than one transaction and one filter', async () => {
    const groups = Array.from({ length: 150 }, (_, index) => ({
      id: `grp-${String(index).padStart(3, '0')}`,
      displayName: `Group ${index}`,
    }));
    expect(
      await catalogue.applyImportPage('big', groups, {
        overwriteExisting: false,
        jobId: 'job-1',
        at: T1,
      }),
    ).toEqual({ ...none, added: 150 });
    expect(
      await catalogue.applyImportPage('big', groups, {
        overwriteExisting: false,
        jobId: 'job-2',
        at: T2,
      }),
    ).toEqual({ ...none, unchanged: 150 });
    expect(await catalogue.unseenRoles('big', 'job-2')).toEqual([]);
  });

  it('lets one import job at a time mark roles gone: a job that lost its lease marks nothing', async () => {
    await catalogue.applyImportPage('lease', [{ id: 'l1', displayName: 'Legal' }], {
      overwriteExisting: false,
      jobId: 'job-1',
      at: T1,
    });
    const claim = (jobId: string, nowMs: number, replacing?: string) =>
      catalogue.claimImport('lease', {
        jobId,
        nowMs,
        ttlMs: 60_000,
        ...(replacing === undefined ? {} : { replacing }),
      });
    expect(await claim('job-a', 0)).toEqual({ held: true });
    // Two claims at once: one wins, the other is told who holds it.
    const rivals = await Promise.all([claim('job-b', 1_000), claim('job-c', 1_000)]);
    expect(rivals.every((answer) => !answer.held)).toBe(true);
    expect(rivals[0]).toMatchObject({ held: false, holder: { jobId: 'job-a' } });
    await expect(
      catalogue.markRemoved('lease', ['l1'], { jobId: 'job-b', at: T2 }, term(1_000)),
    ).rejects.toMatchObject({ code: 'IMPORT_ALREADY_RUNNING', details: { runningJobId: 'job-a' } });
    // The lease expired: job-b takes it, and job-a (still running somewhere) marks nothing.
    expect(await claim('job-b', 61_000)).toEqual({ held: true });
    await expect(
      catalogue.markRemoved('lease', ['l1'], { jobId: 'job-a', at: T2 }, term(61_000)),
    ).rejects.toMatchObject({ code: 'IMPORT_ALREADY_RUNNING', details: { runningJobId: 'job-b' } });
    expect((await catalogue.get('lease', 'l1'))?.status).toBe('present');
    // A holder known to have ended is replaced at once; releasing someone else's lease does nothing.
    expect(await claim('job-d', 62_000, 'job-b')).toEqual({ held: true });
    await catalogue.releaseImport('lease', 'job-b');
    expect((await catalogue.importLease('lease'))?.jobId).toBe('job-d');
    await catalogue.releaseImport('lease', 'job-d');
    expect(await catalogue.importLease('lease')).toBeUndefined();
  });

  it('searches service and target names case-insensitively and finds roles by name', async () => {
    await catalogue.applyImportPage(
      'find',
      [
        { id: '1', displayName: 'sales EMEA' },
        { id: '2', displayName: 'Support' },
        { id: '3', displayName: "O'Brien's team" },
      ],
      { overwriteExisting: false, jobId: 'job-1', at: T1 },
    );
    await catalogue.applyImportPage('find', [{ id: '2', displayName: 'Presales' }], {
      overwriteExisting: false,
      jobId: 'job-2',
      at: T2,
    });
    expect(
      (await catalogue.list('find', { search: 'SALES' })).map((role) => role.displayName),
    ).toEqual(['sales EMEA', 'Support']);
    expect((await rolesNamed('PRESALES')).map((role) => role.groupId)).toEqual(['2']);
    expect((await rolesNamed('support')).map((role) => role.groupId)).toEqual(['2']);
    expect((await rolesNamed("o'brien's TEAM")).map((role) => role.groupId)).toEqual(['3']);
    expect(await rolesNamed('sales')).toEqual([]);
    expect(await catalogue.list('other-connector')).toEqual([]);
    expect(await catalogue.get('find', 'missing')).toBeUndefined();
  });
});

describe('TableRoleCatalogue for incremental imports', () => {
  it('marks removed groups gone once, counts them again for a repeated run of the same job, and never deletes them', async () => {
    await catalogue.applyImportPage(
      'rem',
      [
        { id: 'a', displayName: 'A' },
        { id: 'b', displayName: 'B' },
      ],
      { overwriteExisting: false, jobId: 'job-1', at: T1 },
    );
    const removal = { jobId: 'job-2', at: T2 };
    await catalogue.claimImport('rem', { jobId: 'job-2', nowMs: 0, ttlMs: 60_000 });
    expect(await catalogue.markRemoved('rem', ['a', 'unknown'], removal, term(1_000))).toBe(1);
    expect(await catalogue.markRemoved('rem', ['a'], removal, term(1_000))).toBe(1);
    await catalogue.releaseImport('rem', 'job-2');
    await catalogue.claimImport('rem', { jobId: 'job-3', nowMs: 0, ttlMs: 60_000 });
    expect(await catalogue.markRemoved('rem', ['a'], { jobId: 'job-3', at: T3 }, term(1_000))).toBe(
      0,
    );
    expect(await catalogue.get('rem', 'a')).toMatchObject({ status: 'gone', goneSince: T2 });
    expect(await catalogue.get('rem', 'unknown')).toBeUndefined();
    expect((await catalogue.list('rem')).map((role) => role.groupId)).toEqual(['b']);

    // Back again on the target: the same rules as a full import.
    expect(
      await catalogue.applyImportPage('rem', [{ id: 'a', displayName: 'A' }], {
        overwriteExisting: false,
        jobId: 'job-3',
        at: T3,
      }),
    ).toEqual({ ...none, returned: 1 });
  });

  it('applies pages against a snapshot read once, with the same outcomes as reads by id', async () => {
    await catalogue.applyImportPage('snap', [{ id: 's1', displayName: 'One' }], {
      overwriteExisting: true,
      jobId: 'job-1',
      at: T1,
    });
    const snapshot = await catalogue.snapshot('snap');
    expect(snapshot.size).toBe(1);
    const options = { overwriteExisting: true, jobId: 'job-2', at: T2 };
    expect(
      await catalogue.applyImportPage(
        'snap',
        [
          { id: 's1', displayName: 'One renamed' },
          { id: 's2', displayName: 'Two' },
        ],
        options,
        snapshot,
      ),
    ).toEqual({ ...none, renamed: 1, added: 1 });
    // The snapshot follows its pages: a group listed again counts as the job first counted it.
    expect(
      await catalogue.applyImportPage(
        'snap',
        [{ id: 's2', displayName: 'Two' }],
        options,
        snapshot,
      ),
    ).toEqual({ ...none, added: 1 });
    expect(snapshot.size).toBe(2);
    expect(await catalogue.get('snap', 's1')).toMatchObject({ displayName: 'One renamed' });
    // A snapshot of another connector is not used for this one.
    expect(
      await catalogue.applyImportPage(
        'snap-other',
        [{ id: 's1', displayName: 'X' }],
        options,
        snapshot,
      ),
    ).toEqual({ ...none, added: 1 });
  });

  it('keeps one change cursor per connector, apart from the roles', async () => {
    expect(await catalogue.changeCursor('cur')).toBeUndefined();
    const saved = {
      cursor: 'https://graph.example/v1.0/groups/delta?$deltatoken=1',
      jobId: 'job-1',
      savedAt: T1,
    };
    await catalogue.saveChangeCursor('cur', saved);
    await catalogue.saveChangeCursor('cur-2', { ...saved, cursor: 'other' });
    expect(await catalogue.changeCursor('cur')).toEqual(saved);
    await catalogue.saveChangeCursor('cur', { ...saved, cursor: 'next', jobId: 'job-2' });
    expect(await catalogue.changeCursor('cur')).toMatchObject({ cursor: 'next', jobId: 'job-2' });
    expect(await catalogue.list('cur', { includeGone: true })).toEqual([]);
  });
});

/** The present roles of connector "find" that answer to a name, as a request's lookup reads them. */
async function rolesNamed(name: string) {
  return (await catalogue.list('find')).filter((role) => roleAnswersTo(role, name));
}
