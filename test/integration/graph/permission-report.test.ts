import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  featureOutcomes,
  PERMISSION_SETS,
  connectorName,
  startPermissionTarget,
  type PermissionTarget,
} from '../../support/graph-permission-sets';

/**
 * Issue 12, finding 1: the permission report against the permission sets customers grant,
 * each an app registration of the Graph sandbox (real MSAL, real HTTPS). The sandbox
 * answers each call as Graph does for that set; the report must say, per feature, granted
 * (proof: a probe read), missing or not verified, and on what evidence.
 */
let target: PermissionTarget;

beforeAll(async () => {
  target = await startPermissionTarget();
});
afterAll(async () => target.close());

const status = (name: string, probe: boolean) => target.registry.get(name)!.checkStatus({ probe });

describe('the permission report, per permission set', () => {
  it.each(PERMISSION_SETS)('$name, with the probe reads', async (set) => {
    const report = await target.withLicence(set, () => status(connectorName(set), true));
    expect(report.ok).toBe(true);
    expect(featureOutcomes(report.findings)).toEqual(set.probed);
  });

  it.each(PERMISSION_SETS)('$name, from the token claim alone (no Graph call)', async (set) => {
    const before = target.sandbox.stats.graphRequests;
    const report = await status(connectorName(set), false);
    expect(featureOutcomes(report.findings)).toEqual(set.claimed);
    expect(target.sandbox.stats.graphRequests).toBe(before);
  });
});

describe('what the findings say', () => {
  const set = (name: string) => PERMISSION_SETS.find((candidate) => candidate.name === name)!;
  const finding = async (name: string, feature: string) =>
    (await status(connectorName(set(name)), true)).findings.find((f) => f.name === feature)!;

  it("an account's groups, read with User.ReadWrite.All + GroupMember.ReadWrite.All: the proof and the roles that grant it", async () => {
    const found = await finding('users-and-members', "Read an account's groups");
    expect(found.detail).toMatch(
      /^proof: GET \/users\/[^/]+\/memberOf\?\$top=10&\$select=id,displayName answered 200 \(1 group\(s\) in full\) and GET \/groups\?\$top=1&\$select=id answered 200/,
    );
    expect(found.detail).toContain(
      "hint: the token's roles claim carries User.ReadWrite.All and GroupMember.ReadWrite.All",
    );
  });

  it('never names a permission the token does not carry as the grant', async () => {
    for (const name of ['user-read', 'users-and-members', 'with-audit-log']) {
      const report = await status(connectorName(set(name)), true);
      for (const f of report.findings) expect(f.detail).not.toMatch(/carries[^;]*Directory\./);
      expect(JSON.stringify(report)).not.toMatch(/Directory\.Read\.All works/);
    }
  });

  it('User.Read.All alone: memberOf answers, but its groups come back with only their type and id', async () => {
    const found = await finding('user-read', "Read an account's groups");
    expect(found.detail).toContain('(0 group(s) in full, 1 with only their type and id)');
    expect(found.detail).toContain('grant User.Read.All and GroupMember.Read.All');
  });

  it('a token without a roles claim: "no application permission is granted", naming the app and tenant', async () => {
    const report = await status(connectorName(set('none')), true);
    const advice =
      `no application permission is granted to this app; grant admin consent for ` +
      `${target.clientId(set('none'))} in tenant ${target.sandbox.tenantId}`;
    expect(report.summary).toContain(advice);
    expect(report.findings[1]).toEqual({
      name: 'Application permissions',
      outcome: 'missing',
      evidence: 'token',
      detail: `the access token has no roles claim: ${advice}`,
    });
    const features = report.findings.slice(2);
    expect(features).toHaveLength(6);
    for (const f of features) expect(f.detail).toContain(advice);
  });

  it('last logon without a licence is not verified, and says no permission would help', async () => {
    const report = await target.withLicence(set('unlicensed-tenant'), () =>
      status(connectorName(set('unlicensed-tenant')), true),
    );
    expect(report.findings.find((f) => f.name === 'Last logon')?.detail).toContain(
      'answered 403 Authentication_RequestFromNonPremiumTenantOrB2CTenant: the tenant has no Microsoft Entra ID P1 or P2 licence',
    );
  });

  it('writes are never probed: no write reaches the directory', async () => {
    target.sandbox.clearTruthLog();
    target.sandbox.clearRequests();
    await status(connectorName(set('directory-readwrite')), true);
    expect(target.sandbox.truthLog()).toEqual([]);
    expect(target.sandbox.requests.every((request) => request.method === 'GET')).toBe(true);
  });
});
