import { describe, expect, it } from 'vitest';
import {
  outcomeOfRepeatedSighting,
  roleAnswersTo,
  reconcileImportedGroup,
  type CatalogueRole,
} from '../../../src/domain/catalogue-import';

const job1 = { connector: 'hr', jobId: 'job-1', at: '2025-03-01T10:00:00.000Z' };
const job2 = { connector: 'hr', jobId: 'job-2', at: '2025-03-02T10:00:00.000Z' };

const sales: CatalogueRole = {
  connector: 'hr',
  groupId: 'g1',
  displayName: 'Sales',
  targetName: 'Sales',
  writable: true,
  status: 'present',
  firstImportedAt: job1.at,
  lastImportedAt: job1.at,
  lastSeenJobId: 'job-1',
};

describe('reconcileImportedGroup', () => {
  it('adds an unknown group as a present, writable role', () => {
    const result = reconcileImportedGroup(
      undefined,
      { id: 'g1', displayName: 'Sales' },
      {
        ...job1,
        overwriteExisting: false,
      },
    );
    expect(result).toEqual({ outcome: 'added', role: sales });
  });

  it('leaves a role whose group kept its name unchanged, stamped with the new job', () => {
    const result = reconcileImportedGroup(
      sales,
      { id: 'g1', displayName: 'Sales' },
      {
        ...job2,
        overwriteExisting: true,
      },
    );
    expect(result.outcome).toBe('unchanged');
    expect(result.role).toEqual({ ...sales, lastSeenJobId: 'job-2', lastImportedAt: job2.at });
  });

  it('renames the role when the target renamed the group and overwrite is on', () => {
    const result = reconcileImportedGroup(
      sales,
      { id: 'g1', displayName: 'Sales EMEA' },
      {
        ...job2,
        overwriteExisting: true,
      },
    );
    expect(result.outcome).toBe('renamed');
    expect(result.role).toMatchObject({
      displayName: 'Sales EMEA',
      targetName: 'Sales EMEA',
      firstImportedAt: job1.at,
    });
  });

  it('keeps the role name but shows the target name when overwrite is off', () => {
    const result = reconcileImportedGroup(
      sales,
      { id: 'g1', displayName: 'Sales EMEA' },
      {
        ...job2,
        overwriteExisting: false,
      },
    );
    expect(result.outcome).toBe('renameSkipped');
    expect(result.role).toMatchObject({ displayName: 'Sales', targetName: 'Sales EMEA' });
  });

  it('counts a skipped rename once: the next import without overwrite finds it unchanged', () => {
    const skipped = { ...sales, targetName: 'Sales EMEA' };
    const result = reconcileImportedGroup(
      skipped,
      { id: 'g1', displayName: 'Sales EMEA' },
      {
        ...job2,
        overwriteExisting: false,
      },
    );
    expect(result.outcome).toBe('unchanged');
    expect(result.role.displayName).toBe('Sales');
  });

  it('applies a skipped rename when a later import overwrites', () => {
    const skipped = { ...sales, targetName: 'Sales EMEA' };
    const result = reconcileImportedGroup(
      skipped,
      { id: 'g1', displayName: 'Sales EMEA' },
      {
        ...job2,
        overwriteExisting: true,
      },
    );
    expect(result.outcome).toBe('renamed');
    expect(result.role.displayName).toBe('Sales EMEA');
  });

  it.each([
    [true, 'Sales EMEA'],
    [false, 'Sales'],
  ])(
    'brings a gone role back (overwrite %s) with the rename rule applied',
    (overwriteExisting, name) => {
      const gone: CatalogueRole = { ...sales, status: 'gone', goneSince: job1.at };
      const result = reconcileImportedGroup(
        gone,
        { id: 'g1', displayName: 'Sales EMEA' },
        {
          ...job2,
          overwriteExisting,
        },
      );
      expect(result.outcome).toBe('returned');
      expect(result.role).toMatchObject({
        status: 'present',
        displayName: name,
        targetName: 'Sales EMEA',
      });
      expect(result.role).not.toHaveProperty('goneSince');
    },
  );

  it('takes writability from the target every time', () => {
    const locked = reconcileImportedGroup(
      sales,
      { id: 'g1', displayName: 'Sales', writable: false, notWritableReason: 'dynamic membership' },
      { ...job2, overwriteExisting: false },
    );
    expect(locked.role).toMatchObject({ writable: false, notWritableReason: 'dynamic membership' });
    expect(locked.outcome).toBe('unchanged');

    const unlocked = reconcileImportedGroup(
      locked.role,
      { id: 'g1', displayName: 'Sales' },
      {
        ...job2,
        overwriteExisting: false,
      },
    );
    expect(unlocked.role.writable).toBe(true);
    expect(unlocked.role).not.toHaveProperty('notWritableReason');
  });
});

describe('outcomeOfRepeatedSighting', () => {
  it('repeats what the same job reported when it meets the group again', () => {
    expect(
      outcomeOfRepeatedSighting('added', 'job-1', { jobId: 'job-1', outcome: 'unchanged' }),
    ).toBe('added');
  });

  it('reports the new outcome for another job', () => {
    expect(
      outcomeOfRepeatedSighting('added', 'job-1', { jobId: 'job-2', outcome: 'unchanged' }),
    ).toBe('unchanged');
  });

  it('reports a real change seen by the same job', () => {
    expect(
      outcomeOfRepeatedSighting('added', 'job-1', { jobId: 'job-1', outcome: 'renamed' }),
    ).toBe('renamed');
  });
});

describe('roleAnswersTo', () => {
  const role = { displayName: 'Marketing', targetName: 'Brand & Marketing' } as CatalogueRole;

  it.each(['marketing', 'MARKETING', 'brand & marketing'])('answers to %j', (name) => {
    expect(roleAnswersTo(role, name)).toBe(true);
  });

  it.each(['Market', 'Brand', 'Marketing '])('does not answer to %j', (name) => {
    expect(roleAnswersTo(role, name)).toBe(false);
  });
});
