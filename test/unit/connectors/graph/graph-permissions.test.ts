import { describe, expect, it } from 'vitest';
import {
  assessClaim,
  GRAPH_PERMISSIONS,
  permissionsToGrant,
} from '../../../../src/connectors/graph/graph-permissions';

describe('assessClaim', () => {
  it('an account groups read is met by a user read and a group read, not only by Directory.Read.All', () => {
    expect(
      assessClaim('readAccountGroups', ['User.ReadWrite.All', 'GroupMember.ReadWrite.All']),
    ).toEqual({
      met: true,
      grantedBy: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'],
      lacking: [],
    });
    expect(assessClaim('readAccountGroups', ['Directory.Read.All'])).toEqual({
      met: true,
      grantedBy: ['Directory.Read.All'],
      lacking: [],
    });
  });

  it('names the least permission of each need the claim does not meet', () => {
    expect(assessClaim('readAccountGroups', ['User.Read.All'])).toMatchObject({
      met: false,
      lacking: ['GroupMember.Read.All'],
    });
    expect(assessClaim('lastLogon', ['AuditLog.Read.All'])).toMatchObject({
      met: false,
      lacking: ['User.Read.All'],
    });
    expect(assessClaim('writeAccounts', ['Directory.Read.All']).lacking).toEqual([
      'User.ReadWrite.All',
    ]);
  });

  it('an empty claim meets no task', () => {
    expect(GRAPH_PERMISSIONS.every((entry) => !assessClaim(entry.task, []).met)).toBe(true);
  });
});

describe('permissionsToGrant', () => {
  it('says what to grant for each task', () => {
    expect(GRAPH_PERMISSIONS.map((entry) => permissionsToGrant(entry.task))).toEqual([
      'User.Read.All',
      'User.ReadWrite.All',
      'GroupMember.Read.All',
      'User.Read.All and GroupMember.Read.All',
      'GroupMember.ReadWrite.All',
      'AuditLog.Read.All and User.Read.All',
    ]);
  });
});
