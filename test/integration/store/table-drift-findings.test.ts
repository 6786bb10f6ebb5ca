import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftFinding } from '../../../src/domain/drift-finding';
import { isProvisioningError } from '../../../src/domain/errors';
import type { FindingChange, StoredFinding } from '../../../src/store/drift-findings';
import { tableClient } from '../../../src/store/storage-clients';
import { TableDriftFindings } from '../../../src/store/table-drift-findings';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/*
 * Writes of drift findings over the version read, on Azurite: a restore marked on the copy
 * it read, a reconciliation closed in between, and a finding that keeps changing under a
 * writer.
 */
let storage: TestStorage;
let drift: TableDriftFindings;

beforeAll(async () => {
  storage = await startTestStorage();
  drift = new TableDriftFindings(tableClient(storage.connection, 'Drift'));
});
afterAll(() => storage.close());

function finding(findingId: string): DriftFinding {
  return {
    findingId,
    connector: 'hr',
    type: 'memberAddedOutside',
    accountId: 'ada',
    targetId: 't-ada',
    groupId: `g-${findingId}`,
    groupName: 'Finance',
    status: 'open',
    firstSeen: '2026-11-24T08:00:00.000Z',
    lastConfirmed: '2026-11-24T08:00:00.000Z',
    firstJobId: 'job-1',
    lastJobId: 'job-1',
    evidence: ['first read'],
  };
}

/** What a restore does with a finding it read: marks the finding as stored. */
function restoreMark(read: StoredFinding, requestId: string): FindingChange {
  const restore = { requestId, at: '2026-11-24T09:00:00.000Z' };
  return {
    connector: read.connector,
    findingId: read.findingId,
    read,
    judge: (stored) => (stored === undefined ? undefined : { ...stored, restore }),
  };
}

/** What a reconciliation does with an open finding it no longer sees: closes it. */
function close(read: StoredFinding): FindingChange {
  return {
    connector: read.connector,
    findingId: read.findingId,
    read,
    judge: (stored) =>
      stored?.status === 'open'
        ? {
            ...stored,
            status: 'closed',
            closedAt: '2026-11-24T08:30:00.000Z',
            closedJobId: 'job-2',
            closedBecause: 'no longer shown',
          }
        : undefined,
  };
}

const created = (value: DriftFinding): FindingChange => ({
  connector: value.connector,
  findingId: value.findingId,
  judge: (stored) => (stored === undefined ? value : undefined),
});

describe('TableDriftFindings writes over the version read', () => {
  it('marks a restore on a finding a reconciliation closed since it was read: closed, never open again', async () => {
    await drift.save([created(finding('f-1'))]);
    const [read] = await drift.open('hr');
    expect(read?.version).toBeDefined();
    // The reconciliation reads the same copy, and closes it first.
    await drift.save([close(read!)]);
    await drift.save([restoreMark(read!, 'restore-1')]);

    expect(await drift.open('hr')).toEqual([]);
    const rows = (await drift.query({ connector: 'hr' })).findings;
    expect(rows.map((row) => [row.findingId, row.status, row.closedJobId, row.restore])).toEqual([
      ['f-1', 'closed', 'job-2', { requestId: 'restore-1', at: '2026-11-24T09:00:00.000Z' }],
    ]);
  });

  it('writes the others of a transaction that met a changed finding, and judges that one again', async () => {
    await drift.save([created(finding('f-2')), created(finding('f-3'))]);
    const read = await drift.open('hr');
    const [two, three] = [
      read.find((f) => f.findingId === 'f-2')!,
      read.find((f) => f.findingId === 'f-3')!,
    ];
    await drift.save([restoreMark(three, 'restore-3')]);
    // f-3 changed since `read`: the close of f-2 is written, f-3's judged on its fresh copy.
    const stored = await drift.save([close(two), close(three)]);
    expect(stored.map((f) => [f.findingId, f.status, f.restore?.requestId])).toEqual([
      ['f-2', 'closed', undefined],
      ['f-3', 'closed', 'restore-3'],
    ]);
    expect((await drift.open('hr')).map((f) => f.findingId)).toEqual([]);
  });

  it('keeps one open finding per subject: a second pass that finds it new meets the first one', async () => {
    const subject = { groupId: 'g-same' };
    const first = { ...finding('f-5'), ...subject };
    const second = { ...finding('f-6'), ...subject, firstJobId: 'job-2', lastJobId: 'job-2' };
    await drift.save([created(first)]);
    // The second pass judges the finding it meets instead of adding its own.
    const met: (StoredFinding | undefined)[] = [];
    const meeting: FindingChange = {
      connector: 'hr',
      findingId: 'f-6',
      judge: (stored) => {
        met.push(stored);
        return stored === undefined ? second : { ...stored, lastJobId: 'job-2' };
      },
    };
    expect((await drift.save([meeting])).map((f) => [f.findingId, f.lastJobId])).toEqual([
      ['f-5', 'job-2'],
    ]);
    expect(met.map((stored) => stored?.findingId)).toEqual([undefined, 'f-5']);
    const open = (await drift.open('hr')).filter((f) => f.groupId === 'g-same');
    expect(open.map((f) => [f.findingId, f.lastJobId])).toEqual([['f-5', 'job-2']]);

    // Both new in one save: one transaction cannot hold them; the second meets the first.
    await drift.save([close(open[0]!)]);
    const [third, fourth] = [finding('f-7'), finding('f-8')].map((f) => ({ ...f, ...subject }));
    await drift.save([created(third!), created(fourth!)]);
    const reopened = (await drift.open('hr')).filter((f) => f.groupId === 'g-same');
    // Closed, the subject is free again: a later drift of it is a new finding.
    expect(reopened.map((f) => f.findingId)).toEqual(['f-7']);
    // The report lists findings only, never a subject's claim.
    const report = (await drift.query({ connector: 'hr' })).findings;
    expect(report.every((f) => f.groupId !== undefined)).toBe(true);
    expect(
      report.filter((f) => f.groupId === 'g-same').map((f) => [f.findingId, f.status]),
    ).toEqual([
      ['f-7', 'open'],
      ['f-5', 'closed'],
    ]);
  });

  it('gives up on a finding that changes every time it is read again, naming it', async () => {
    await drift.save([created(finding('f-4'))]);
    const [read] = (await drift.open('hr')).filter((f) => f.findingId === 'f-4');
    let judged = 0;
    const contended: FindingChange = {
      connector: 'hr',
      findingId: 'f-4',
      read: read!,
      judge: (stored) => {
        judged += 1;
        return stored === undefined ? undefined : { ...stored, lastJobId: `job-${judged}` };
      },
    };
    // Another writer changes the finding after it was read, and again after each fresh read:
    // the writer above never wins.
    await drift.save([restoreMark(read!, 'rival-first')]);
    const get = drift.get.bind(drift);
    drift.get = async (connector, id) => {
      const fresh = await get(connector, id);
      await drift.save([restoreMark(fresh!, `rival-${judged}`)]);
      return fresh;
    };
    try {
      const error = await drift.save([contended]).catch((e: unknown) => e);
      expect(isProvisioningError(error) && error.code).toBe('DRIFT_FINDING_CONTENDED');
      expect(isProvisioningError(error) && error.object).toBe('f-4');
      expect(String((error as Error).message)).toContain('"f-4" of connector "hr"');
    } finally {
      drift.get = get;
    }
    const [after] = (await drift.open('hr')).filter((f) => f.findingId === 'f-4');
    expect(after?.lastJobId).toBe('job-1');
    expect(after?.restore?.requestId).toMatch(/^rival-/);
  });
});
