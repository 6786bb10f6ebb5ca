import { describe, expect, it } from 'vitest';
import type {
  PermissionProbes,
  ProbeRead,
} from '../../../../src/connectors/graph/permission-probes';
import { permissionReport } from '../../../../src/connectors/graph/permission-report';

const app = { clientId: 'app-1', tenantId: 'tenant-1' };
const allowed = (call: string, objects: Record<string, unknown>[] = []): ProbeRead => ({
  call,
  outcome: { kind: 'allowed', objects: objects.map((o) => ({ id: 'x', ...o })) },
});
const failed = (call: string): ProbeRead => ({
  call,
  outcome: { kind: 'failed', reason: 'it answered 503 ServiceUnavailable' },
});
const probes = (overrides: Partial<PermissionProbes> = {}): PermissionProbes => ({
  users: allowed('GET /users'),
  groups: allowed('GET /groups'),
  signIns: allowed('GET /users?signIns'),
  accountGroups: allowed('GET /users/u/memberOf', [
    { '@odata.type': '#microsoft.graph.group', displayName: 'Sales' },
  ]),
  ...overrides,
});
const full = { kind: 'roles' as const, roles: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'] };
const find = (report: ReturnType<typeof permissionReport>, name: string) =>
  report.find((finding) => finding.name === name)!;

describe('permissionReport', () => {
  it('a probe that failed proves nothing: not verified, saying why', () => {
    const report = permissionReport(full, probes({ groups: failed('GET /groups') }), app);
    expect(find(report, 'Read groups and group structure')).toEqual({
      name: 'Read groups and group structure',
      outcome: 'not verified',
      detail:
        "not shown: the probe GET /groups failed (it answered 503 ServiceUnavailable); hint: the token's roles claim carries GroupMember.ReadWrite.All",
    });
    expect(find(report, "Read an account's groups").outcome).toBe('not verified');
  });

  it('a tenant without accounts leaves the account groups read not verified', () => {
    const report = permissionReport(full, probes({ accountGroups: undefined }), app);
    expect(find(report, "Read an account's groups")).toMatchObject({
      outcome: 'not verified',
      detail: expect.stringContaining('found no account') as unknown,
    });
  });

  it('a token it cannot read gives no hint and grants nothing', () => {
    const report = permissionReport({ kind: 'unreadable' }, undefined, app);
    expect(report.map((finding) => [finding.outcome, finding.evidence])).toEqual(
      Array(6).fill(['not verified', undefined]),
    );
  });

  it('a roles claim lacking a permission is a missing hint, naming what to grant', () => {
    const report = permissionReport({ kind: 'roles', roles: ['User.Read.All'] }, undefined, app);
    expect(find(report, "Read an account's groups")).toEqual({
      name: "Read an account's groups",
      outcome: 'missing',
      evidence: 'token',
      detail:
        "hint: the token's roles claim carries no GroupMember.Read.All (nor a permission that includes it)",
    });
  });
});
