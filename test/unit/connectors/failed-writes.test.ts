import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import { failedMembershipWrites } from '../../../src/domain/lost-answer';
import { failedWriteCall } from '../../../src/connectors/failed-writes';

const lost = new ProvisioningError('TARGET_UNAVAILABLE', 'PATCH /Groups/g-1 answered 504', {
  status: 504,
  retryable: true,
  details: { maybeApplied: true },
});
const refused = new ProvisioningError('TARGET_AUTH_FAILED', 'PATCH /Groups/g-2 answered 403', {
  status: 403,
});

describe('a membership write call that failed in part', () => {
  it('fails by the refusal, not by the lost answer before it, and lists both as the step reads them', () => {
    const error = failedWriteCall(
      [
        { write: { groupId: 'g-1', change: 'added' }, error: lost, maybeApplied: true },
        { write: { groupId: 'g-2', change: 'added' }, error: refused, maybeApplied: false },
      ],
      [
        {
          groupId: 'g-3',
          groupName: 'Ops',
          change: 'added',
          outcome: 'acknowledged',
          maybeOurs: false,
        },
      ],
    );
    expect(error.code).toBe('TARGET_AUTH_FAILED');
    expect(error.message).toBe('PATCH /Groups/g-2 answered 403 (and 1 more failed write(s))');
    expect(failedMembershipWrites(error.toJSON())).toEqual([
      {
        groupId: 'g-1',
        change: 'added',
        code: 'TARGET_UNAVAILABLE',
        status: 504,
        message: 'PATCH /Groups/g-1 answered 504',
        maybeApplied: true,
      },
      {
        groupId: 'g-2',
        change: 'added',
        code: 'TARGET_AUTH_FAILED',
        status: 403,
        message: 'PATCH /Groups/g-2 answered 403',
        maybeApplied: false,
      },
    ]);
    expect(error.details?.written).toEqual([
      {
        groupId: 'g-3',
        groupName: 'Ops',
        change: 'added',
        outcome: 'acknowledged',
        maybeOurs: false,
      },
    ]);
  });

  it('fails by the first lost answer when nothing was refused', () => {
    const error = failedWriteCall(
      [{ write: { groupId: 'g-1', change: 'removed' }, error: lost, maybeApplied: true }],
      [],
    );
    expect(error).toMatchObject({ code: 'TARGET_UNAVAILABLE', status: 504 });
    expect(error.message).toBe('PATCH /Groups/g-1 answered 504');
  });
});
