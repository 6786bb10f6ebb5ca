import type { HttpRequest, InvocationContext } from '@azure/functions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { healthHandler } from '../../../src/api/health-api';
import { guardHandler } from '../../../src/api/guard-handler';
import { endGroupsCutHandler } from '../../../src/api/user-groups-end-api';
import { loadConfig, type AppConfig } from '../../../src/config/app-config';
import type { Connector } from '../../../src/connectors/connector';
import { ConnectorRegistry } from '../../../src/connectors/connector-registry';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { scimConnectorSchema } from '../../../src/connectors/scim/scim-settings';
import type { HealthReport } from '../../../src/domain/health-report';
import { silentLogger } from '../../../src/domain/logger';
import { buildServices } from '../../../src/runtime/build-services';
import { startServiceRuntime } from '../../../src/runtime/service-runtime';
import { startScimSandbox, type ScimQuirks, type ScimSandbox } from '../../../src/sandbox/scim';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { jobInstanceId, ORCHESTRATIONS } from '../../../src/workflows/names';
import type { JobReport } from '../../../src/workflows/orchestrators/job-orchestrators';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { createdAccount, runMembership } from '../../support/membership-procedure';

/**
 * A SCIM server whose users' `groups` leave out groups of one type: once that is seen (by a
 * connector's read, or by a compatibility run), the attribute's silence is never taken for a
 * non-membership again, by any worker on the same storage nor after a restart; a
 * compatibility run that finds it complete ends only a cut a compatibility run recorded. Each "worker" is the service's own composition
 * (buildServices) with its own connectors, on one Azurite; judged by the groups the SCIM
 * sandbox stores.
 */
const TOKEN = 'kept-verdict-token-3b8e1f';
/** No members filter, member lists cut at two, users' groups never listing two of them. */
const QUIRKS: ScimQuirks = {
  membersFilter: 'refused',
  maxMembersShown: 2,
  userGroups: 'served',
  userGroupsLeaveOut: ['Lab', 'Contractors'],
};

let storage: TestStorage;
let sandbox: ScimSandbox | undefined;
const opened: WorkflowServices[] = [];

beforeAll(async () => {
  storage = await startTestStorage();
});
afterEach(async () => {
  for (const services of opened.splice(0)) await services.registry.close();
  await sandbox?.close();
  sandbox = undefined;
});
afterAll(async () => {
  await storage?.close();
});

let connectors = 0;

/** The sandbox, seeded, and the service's config for a connector of a new name on it. */
async function server() {
  sandbox = await startScimSandbox({ auth: { type: 'bearer', token: TOKEN }, quirks: QUIRKS });
  const [, , canteen, lab, contractors] = sandbox.seedGroups([
    { displayName: 'Team', members: ['colleague', 'new.hire'] },
    { displayName: 'Floor 3', members: ['colleague'] },
    { displayName: 'Canteen', members: ['colleague'] },
    { displayName: 'Lab' },
    { displayName: 'Contractors', members: ['member.one', 'member.two', 'new.hire'] },
  ]);
  const name = `scim-kept-${++connectors}`;
  const config: AppConfig = {
    ...loadConfig({}, connectorSettingsKinds()),
    connectors: [
      scimConnectorSchema.parse({
        name,
        kind: 'scim',
        baseUrl: sandbox.baseUrl,
        auth: { type: 'bearer', tokenSecret: 'scim-token' },
        timeoutMs: 5_000,
      }),
    ],
  };
  return {
    s: sandbox,
    name,
    config,
    secrets: new LocalSecretStore({ 'scim-token': TOKEN }),
    canteen: canteen!.id,
    lab: lab!.id,
    contractors: contractors!.id,
  };
}

type Server = Awaited<ReturnType<typeof server>>;

/** A worker of the service on the shared storage: its services and its own connector. */
function worker(t: Server): { services: WorkflowServices; connector: Connector } {
  const services = buildServices({
    config: t.config,
    logger: silentLogger,
    storage: storage.connection,
    secrets: t.secrets,
  });
  opened.push(services);
  return { services, connector: services.registry.get(t.name)! };
}

/** The account as the connector finds it by its account ID. */
async function found(connector: Connector, accountId: string) {
  const account = await connector.findAccount(accountId);
  if (account === undefined) throw new Error(`account ${accountId} not found`);
  return account;
}

/**
 * On a worker that knows nothing yet: the colleague's Canteen revoke (applied) shows this
 * worker users' lists of up to three groups; then the hire's revoke of Contractors, which
 * the server answers 204 and does not apply. The hire's groups list one group ("Team"),
 * fewer than three, and leave Contractors out, whose cut member list does not show the hire.
 */
async function revokeNotApplied(t: Server, connector: Connector) {
  await runMembership(connector, await found(connector, 'colleague'), 'revoke', [t.canteen]);
  expect(t.s.groupIdsOf('colleague')).not.toContain(t.canteen);
  t.s.setQuirks({ ...QUIRKS, ignorePatchOps: true });
  try {
    return await runMembership(connector, await found(connector, 'new.hire'), 'revoke', [
      t.contractors,
    ]);
  } finally {
    t.s.setQuirks(QUIRKS);
  }
}

describe("a user's groups attribute seen to leave out a group, on one worker", () => {
  it('is not believed by another worker on the same storage, nor after a restart: a revoke not applied is never verified', async () => {
    const t = await server();
    const first = worker(t);
    const colleague = await createdAccount(first.connector, { accountId: 'colleague' });
    await createdAccount(first.connector, { accountId: 'new.hire' });
    // The grant's read back sees Lab hold the colleague and the colleague's groups leave it out.
    const granted = await runMembership(first.connector, colleague, 'grant', [t.lab]);
    expect(granted.ok).toBe(true);
    expect(t.s.groupIdsOf('colleague')).toContain(t.lab);

    const second = worker(t);
    const revoked = await revokeNotApplied(t, second.connector);
    // The truth: the hire is still a member of Contractors.
    expect(t.s.groupIdsOf('new.hire')).toContain(t.contractors);
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('once left out group Lab'),
      details: { untold: [{ id: t.contractors, name: 'Contractors' }] },
    });
    expect(revoked.changes).toEqual([]);
    // Kept in the connector's state, which the health report shows, naming what was seen.
    const health = await healthHandler({
      services: () => Promise.resolve(second.services),
      now: () => new Date(),
    })({} as HttpRequest, {} as InvocationContext);
    const report = health.jsonBody as HealthReport;
    expect(report.connectors.find((c) => c.name === t.name)?.userGroups).toMatchObject({
      verdict: 'cut',
      by: 'connector',
      why: expect.stringContaining('once left out group Lab'),
    });

    // Every worker stops; one starts again on the same storage.
    for (const services of opened.splice(0)) await services.registry.close();
    const restarted = worker(t);
    const again = await revokeNotApplied(t, restarted.connector);
    expect(t.s.groupIdsOf('new.hire')).toContain(t.contractors);
    expect(again.ok).toBe(false);
    expect(again.error?.code).toBe('MEMBERSHIP_READ_UNAVAILABLE');
  });
});

describe("a user's groups attribute seen to leave out a group, where nothing keeps it", () => {
  it('is still never believed again by the connector that saw it (a registry with no store)', async () => {
    const t = await server();
    const registry = new ConnectorRegistry(t.config, t.secrets);
    try {
      const connector = registry.get(t.name)!;
      const colleague = await createdAccount(connector, { accountId: 'colleague' });
      await createdAccount(connector, { accountId: 'new.hire' });
      expect((await runMembership(connector, colleague, 'grant', [t.lab])).ok).toBe(true);
      const revoked = await revokeNotApplied(t, connector);
      expect(t.s.groupIdsOf('new.hire')).toContain(t.contractors);
      expect(revoked.error).toMatchObject({
        code: 'MEMBERSHIP_READ_UNAVAILABLE',
        message: expect.stringContaining('once left out group Lab'),
      });
    } finally {
      await registry.close();
    }
  });
});

/** Runs the compatibility run job on a runtime of the service on the shared storage. */
async function compatibilityRun(t: Server, jobId: string, groupName: string): Promise<JobReport> {
  const runtime = await startServiceRuntime({
    config: t.config,
    logger: silentLogger,
    secrets: t.secrets,
    storage: storage.connection,
  });
  try {
    const instanceId = jobInstanceId(jobId);
    await runtime.driver.startNew(ORCHESTRATIONS.compatibilityRun, instanceId, {
      jobId,
      type: 'Compatibility run',
      connector: t.name,
      trigger: 'api',
      groupName,
    });
    const state = await runtime.driver.waitFor(instanceId, 30_000);
    return state.output as JobReport;
  } finally {
    await runtime.close();
  }
}

describe("a user's groups attribute a connector caught cut, then a compatibility run finds complete", () => {
  it('stays cut for every worker: the run tested one ordinary group, and a revoke not applied ends "could not tell"', async () => {
    const t = await server();
    const first = worker(t);
    const colleague = await createdAccount(first.connector, { accountId: 'colleague' });
    await createdAccount(first.connector, { accountId: 'new.hire' });
    // The grant's read back sees Lab hold the colleague and the colleague's groups leave it out.
    expect((await runMembership(first.connector, colleague, 'grant', [t.lab])).ok).toBe(true);
    expect(t.s.groupIdsOf('colleague')).toContain(t.lab);

    // A run on an ordinary group, which the attribute lists: it finds the attribute complete.
    const complete = await compatibilityRun(t, 'compat-ordinary', 'Canteen');
    expect(complete.result).toMatchObject({ userGroups: { outcome: 'complete' } });
    const states = await first.services.connectorStates.read([t.name]);
    expect(states.get(t.name)?.userGroups).toMatchObject({ verdict: 'cut', by: 'connector' });

    for (const connector of [worker(t).connector, first.connector]) {
      const revoked = await revokeNotApplied(t, connector);
      // The truth: the hire is still a member of Contractors.
      expect(t.s.groupIdsOf('new.hire')).toContain(t.contractors);
      expect(revoked.ok).toBe(false);
      expect(revoked.error).toMatchObject({
        code: 'MEMBERSHIP_READ_UNAVAILABLE',
        message: expect.stringContaining('once left out group Lab'),
      });
      expect(revoked.changes).toEqual([]);
    }
  });
});

describe("the compatibility run's finding on the user's groups attribute", () => {
  it('incomplete: no worker believes the attribute afterwards; complete: an operator’s word that ends it', async () => {
    const t = await server();
    const setup = worker(t);
    await createdAccount(setup.connector, { accountId: 'colleague' });
    await createdAccount(setup.connector, { accountId: 'new.hire' });

    // The run's test account is made a member of Lab (its member list shows it), which
    // users' groups leave out.
    const incomplete = await compatibilityRun(t, 'compat-incomplete', 'Lab');
    expect(incomplete.status).toBe('succeeded');
    expect(incomplete.result).toMatchObject({ userGroups: { outcome: 'incomplete' } });

    const later = worker(t);
    const revoked = await revokeNotApplied(t, later.connector);
    expect(t.s.groupIdsOf('new.hire')).toContain(t.contractors);
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('the compatibility run of'),
    });

    // The server is fixed; the operator runs the compatibility run again and it finds the
    // attribute complete. A revoke the server applies is then verified on the attribute's
    // silence, as on any server whose list is known complete.
    t.s.setQuirks({ ...QUIRKS, userGroupsLeaveOut: [] });
    const complete = await compatibilityRun(t, 'compat-complete', 'Lab');
    expect(complete.result).toMatchObject({ userGroups: { outcome: 'complete' } });
    const states = await later.services.connectorStates.read([t.name]);
    expect(states.get(t.name)?.userGroups).toMatchObject({
      verdict: 'complete',
      by: 'compatibility run',
      jobId: 'compat-complete',
    });
    const hire = await found(later.connector, 'new.hire');
    const applied = await runMembership(later.connector, hire, 'revoke', [t.contractors]);
    expect(t.s.groupIdsOf('new.hire')).not.toContain(t.contractors);
    expect(applied.ok, JSON.stringify(applied.error)).toBe(true);
    expect(applied.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId: t.contractors }),
    ]);
  });
});

/** The operator's `POST /api/connectors/{name}/user-groups/end-cut`, on a worker's services. */
async function endCutByOperator(t: Server, services: WorkflowServices, reason: unknown) {
  const request = {
    method: 'POST',
    params: { name: t.name },
    headers: new Headers({ 'content-type': 'application/json' }),
    text: () => Promise.resolve(JSON.stringify({ reason })),
  } as unknown as HttpRequest;
  const context = { log: () => undefined, warn: () => undefined } as unknown as InvocationContext;
  // Through the route's guard, as the API serves it (refusals answered with their status).
  const handler = endGroupsCutHandler({
    services: () => Promise.resolve(services),
    now: () => new Date(),
  });
  return guardHandler('endGroupsCut', handler)(request, context);
}

describe('a cut a connector caught, ended by an operator once the server is mended', () => {
  it('is refused until a compatibility run finds the attribute complete; then every worker, the one that caught it too, believes it again, until a connector catches it cut again', async () => {
    const t = await server();
    const first = worker(t);
    const colleague = await createdAccount(first.connector, { accountId: 'colleague' });
    await createdAccount(first.connector, { accountId: 'new.hire' });
    expect((await runMembership(first.connector, colleague, 'grant', [t.lab])).ok).toBe(true);

    // No run since the cut: refused, naming why; the cut stays.
    const early = await endCutByOperator(t, first.services, 'vendor fix 4.2');
    expect(early.status).toBe(409);
    expect(early.jsonBody).toMatchObject({
      error: {
        code: 'REQUEST_CONFLICT',
        message: expect.stringContaining('no compatibility run has told'),
      },
    });
    expect(await first.services.connectorStates.readUserGroups(t.name)).toMatchObject({
      verdict: 'cut',
      by: 'connector',
    });
    expect((await endCutByOperator(t, first.services, '  ')).status).toBe(400);

    // The vendor mends the server; a run finds the attribute complete; the operator ends the cut.
    t.s.setQuirks({ ...QUIRKS, userGroupsLeaveOut: [] });
    const mended = await compatibilityRun(t, 'compat-mended', 'Lab');
    expect(mended.result).toMatchObject({ userGroups: { outcome: 'complete' } });
    const ended = await endCutByOperator(t, first.services, 'vendor fix 4.2');
    expect(ended.status).toBe(200);
    expect(ended.jsonBody).toMatchObject({
      ended: true,
      userGroups: {
        verdict: 'complete',
        by: 'operator',
        byName: 'an operator',
        jobId: 'compat-mended',
        why: expect.stringContaining('vendor fix 4.2'),
      },
    });

    // The worker that caught the cut believes the attribute again: a revoke the server
    // applies is verified, where the member list (cut at two) cannot show it.
    const hire = await found(first.connector, 'new.hire');
    const applied = await runMembership(first.connector, hire, 'revoke', [t.contractors]);
    expect(t.s.groupIdsOf('new.hire')).not.toContain(t.contractors);
    expect(applied.ok, JSON.stringify(applied.error)).toBe(true);
    expect(applied.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId: t.contractors }),
    ]);

    // The server cuts again; a connector that sees it keeps the cut over the operator's end,
    // and a revoke the server does not apply is never verified.
    t.s.setQuirks(QUIRKS);
    const other = worker(t);
    const again = await found(other.connector, 'new.hire');
    expect((await runMembership(other.connector, again, 'grant', [t.lab])).ok).toBe(true);
    expect(await other.services.connectorStates.readUserGroups(t.name)).toMatchObject({
      verdict: 'cut',
      by: 'connector',
    });
  });
});
